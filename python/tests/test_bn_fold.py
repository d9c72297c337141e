"""The float reference through PT2E's BatchNorm folds (issue 30).

Ground truth: folding every BatchNorm before export (``fuse_conv_bn_eval``) gives the same
int8 program, and that model's float reference needs no fold handling; so the float
reference of the unfused model must equal it, record by record. BatchNorms PT2E keeps are
checked against the eager modules' own outputs (forward hooks).
"""

from __future__ import annotations

import logging

import pytest
import torch
from executorch.exir import to_edge_transform_and_lower
from torch import nn
from torch.export import export
from torchao.quantization.pt2e import quantize_pt2e

from gapscope_capture.capture import CaptureResult, capture_from_program
from gapscope_capture.capture_format import CaptureRecord, read_capture
from gapscope_capture.float_reference import capture_float_reference
from gapscope_capture.provenance import node_provenance
from gapscope_zoo.zoo_bn import ConvBnNet, build, prefuse, quantize

LOGGER = "gapscope_capture.float_reference"


def _capture(model: nn.Module, inputs: tuple[torch.Tensor, ...]):
    """The float program and the int8 program's capture (edge program, not run)."""
    float_program = export(model, inputs)
    edge = to_edge_transform_and_lower(quantize(float_program, inputs), generate_etrecord=True)
    return float_program, capture_from_program(edge, inputs)


def _rel(a: torch.Tensor, b: torch.Tensor) -> float:
    return ((a.double() - b.double()).norm() / b.double().norm()).item()


def _from_file(capture: CaptureResult) -> CaptureResult:
    """The capture as read from a file: no graph, so no provenance."""
    return CaptureResult(
        capture.records,
        capture.inputs,
        capture.reference_outputs,
        capture.reference_graph,
        capture.method,
        capture.etrecord_sha256,
    )


def test_folded_convs_and_linears_hold_conv_plus_batchnorm(caplog) -> None:
    model, inputs = build()
    float_program, capture = _capture(model, inputs)
    fused_program, fused_capture = _capture(prefuse(build()[0]), inputs)
    truth = {r.debug_handle: r for r in capture_float_reference(fused_program, fused_capture).records}
    with caplog.at_level(logging.INFO, logger=LOGGER):
        result = capture_float_reference(float_program, capture)
    assert result.reference_graph.startswith("float_exported_program (handles by node provenance")
    assert {r.debug_handle for r in result.records} == set(truth)
    for record in result.records:
        assert record.invalid_reason is None
        assert _rel(record.outputs[0], truth[record.debug_handle].outputs[0]) < 1e-5, record.ops
    # 8 convs and the linear each absorbed their BatchNorm.
    assert sum("absorbed" in m for m in caplog.messages) == 9
    # From a file (names, and PT2E's folding rule): the same values, nothing renumbered.
    by_name = capture_float_reference(float_program, _from_file(capture))
    assert "handles by node name" in by_name.reference_graph
    for record in by_name.records:
        assert _rel(record.outputs[0], truth[record.debug_handle].outputs[0]) < 1e-5, record.ops


class MixedBN(nn.Module):
    """BatchNorms PT2E folds (after a conv) and BatchNorms it keeps (on the input, after an
    add): the re-export after convert_pt2e renumbers the kept ones."""

    def __init__(self) -> None:
        super().__init__()
        self.bn_in = nn.BatchNorm2d(3)
        self.c1 = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8))
        self.c2 = nn.Sequential(nn.Conv2d(8, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8))
        self.bn_add = nn.BatchNorm2d(8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.c1(self.bn_in(x)))
        return torch.relu(self.bn_add(y + self.c2(y)))


@pytest.fixture(scope="module")
def mixed():
    """MixedBN's float program, int8 capture and the kept BatchNorms' eager outputs.

    convert_pt2e traces its QAT conv + BatchNorm patterns (30 s) whenever a BatchNorm is
    left; a post-training flow has none to fold (prepare_pt2e folded every conv's), so the
    pass is skipped here: the graph is the same without it.
    """
    model, inputs = build(MixedBN())
    kept = {}
    hooks = [
        getattr(model, name).register_forward_hook(lambda m, i, o, name=name: kept.__setitem__(name, o))
        for name in ("bn_in", "bn_add")
    ]
    with torch.no_grad():
        model(*inputs)
    for hook in hooks:
        hook.remove()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(quantize_pt2e, "_fold_conv_bn_qat", lambda m: m)
        float_program, capture = _capture(model, inputs)
    return float_program, capture, kept


def test_renumbered_batchnorms_are_matched_by_provenance(mixed) -> None:
    float_program, capture, kept = mixed
    quantised_names = [n for n in capture.provenance if n.startswith("batch_norm")]
    assert quantised_names == ["batch_norm", "batch_norm_1"]  # float: batch_norm, _3 (1, 2 folded)
    result = capture_float_reference(float_program, capture)
    records = {r.ops[0]: r for r in result.records}
    assert _rel(records["batch_norm"].outputs[0], kept["bn_in"]) < 1e-6
    # Matched by name, the quantised batch_norm_1 would be the float batch_norm_1: c1's, folded.
    assert _rel(records["batch_norm_1"].outputs[0], kept["bn_add"]) < 1e-6
    assert all(r.invalid_reason is None for r in result.records)


def test_renumbered_batchnorms_from_a_file_are_invalid_with_the_reason(mixed, tmp_path, caplog) -> None:
    float_program, capture, _ = mixed
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        result = capture_float_reference(float_program, _from_file(capture))
    invalid = [r for r in result.records if r.invalid_reason is not None]
    assert [r.ops[0] for r in invalid] == ["batch_norm", "batch_norm_1"]
    assert all(r.outputs == [None] for r in invalid)
    assert all("re-export renumbered the others" in r.invalid_reason for r in invalid)
    assert sum("written without a value" in m for m in caplog.messages) == 2
    path = tmp_path / "float.gscap.safetensors"
    result.write(path)
    back = [r for r in read_capture(path).records if r.invalid_reason is not None]
    assert [(r.ops, r.invalid_reason) for r in back] == [(r.ops, r.invalid_reason) for r in invalid]


class _ConvThen(nn.Module):
    def __init__(self, tail: str) -> None:
        super().__init__()
        self.tail = tail
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.drop = nn.Dropout(0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        return torch.relu(y * 2.0 if self.tail == "mul" else self.drop(y))


@pytest.mark.parametrize("tail, valid", [("mul", False), ("dropout", True)])
def test_a_consumer_missing_from_the_quantised_program(tail: str, valid: bool, caplog) -> None:
    """A float consumer that the quantised program lacks and that is no known fold (made here
    by deleting it from a copy of the float graph): a no-op (dropout in eval) does not
    matter; anything else makes the row invalid, never a number."""
    torch.manual_seed(0)
    model, inputs = _ConvThen(tail).eval(), (torch.randn(1, 3, 4, 4),)
    float_program = export(model, inputs)
    assert [n.name for n in float_program.graph.nodes if n.op == "call_function"] == ["conv2d", tail, "relu"]
    quantised_graph = float_program.module()
    (gone,) = [n for n in quantised_graph.graph.nodes if n.name == tail]
    gone.replace_all_uses_with(gone.args[0])
    quantised_graph.graph.erase_node(gone)
    records = [
        CaptureRecord((1,), ["conv2d"], [torch.zeros(1, 8, 4, 4)]),
        CaptureRecord((2,), ["relu"], [torch.zeros(1, 8, 4, 4)]),
    ]
    fake = CaptureResult(records, list(inputs), [], "exported_program", "forward", None)
    fake.provenance = node_provenance(quantised_graph)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        conv, relu = capture_float_reference(float_program, fake).records
    assert relu.outputs[0] is not None
    assert (conv.invalid_reason is None) == valid
    if not valid:
        assert conv.outputs == [None]
        assert "no counterpart of the float 'mul'" in conv.invalid_reason
    # From a file, only PT2E's own folds are assumed: a node without a record may still be
    # in the program (ExecuTorch leaves some ATen nodes without a handle).
    fake.provenance = None
    assert all(r.invalid_reason is None for r in capture_float_reference(float_program, fake).records)


class _TwoNormsOneConv(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1, self.bn2 = nn.BatchNorm2d(8), nn.BatchNorm2d(8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        return torch.relu(self.bn1(y)) + torch.relu(self.bn2(y))


class _ConvFeedsNormAndMore(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        return torch.relu(self.bn(y)) + y


def test_two_batchnorms_folded_into_one_conv_make_its_row_invalid() -> None:
    """PT2E folds both (the second 'fake-fused'): which value the conv holds cannot be told."""
    model, inputs = build(_TwoNormsOneConv())
    float_program, capture = _capture(model, inputs)
    conv = next(r for r in capture_float_reference(float_program, capture).records if "conv2d" in r.ops)
    assert conv.outputs == [None]
    assert "folded 'batch_norm', 'batch_norm_1' into 'conv2d'" in conv.invalid_reason


def test_a_conv_feeding_a_batchnorm_and_another_op(caplog) -> None:
    """PT2E folds anyway and rewires only the BatchNorm's users: the conv's record is the
    BatchNorm's output, and a warning says its other consumer now reads the folded value."""
    model, inputs = build(_ConvFeedsNormAndMore())
    float_program, capture = _capture(model, inputs)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        result = capture_float_reference(float_program, capture)
    conv = next(r for r in result.records if "conv2d" in r.ops)
    with torch.no_grad():
        want = model.bn(model.conv(inputs[0]))
    assert _rel(conv.outputs[0], want) < 1e-6
    assert "feeds the folded 'batch_norm' and also 'add'" in caplog.text


def test_conv_bn_net_is_the_zoo_model() -> None:
    """The zoo's session and these tests use one model; its BatchNorms are all folded."""
    model, inputs = build()
    assert isinstance(model, ConvBnNet)
    names = [n.name for n in export(model, inputs).graph.nodes if n.op == "call_function"]
    assert sum(n.startswith("batch_norm") for n in names) == 9
