"""``gapscope-capture fix`` (issue 59): what to keep in float, verified by runs."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
from torch.export import export

from gapscope_capture.cli import main
from gapscope_capture.capture_format import write_inputs
from gapscope_capture.capture_errors import CaptureFormatError
from gapscope_capture.fix import Target, _Runner, output_snr_db, report_candidates, top1_agreement
from gapscope_capture.fix_recipes import RECIPES
from gapscope_zoo import zoo_fix


@pytest.fixture(scope="module")
def culprit(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[Path]]:
    directory = tmp_path_factory.mktemp("culprit")
    model, inputs = zoo_fix.build()
    saved = directory / "float.pt2"
    torch.export.save(export(model, inputs), str(saved))
    write_inputs(list(inputs), directory / "inputs.safetensors")
    batches = []
    for i, batch in enumerate(zoo_fix.calibration()):
        batches.append(directory / f"calibration-{i}.safetensors")
        write_inputs(list(batch), batches[-1])
    return directory, saved, batches


def test_fix_finds_the_culprit_from_a_report_and_its_snippet_reproduces_it(culprit, tmp_path: Path) -> None:
    directory, saved, batches = culprit
    # A report that flags the culprit's op first, as gapscope-cli compare --json writes it.
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"first_divergence": {"row": 3, "aot_ops": ["conv2d_2"]}, "introducers": []}))
    out = tmp_path / "fix"
    argv = ["fix", str(saved), "-o", str(out), "--target", zoo_fix.TARGET, "--report", str(report)]
    argv += ["--inputs", str(directory / "inputs.safetensors"), "--max-candidates", "2"]
    for batch in batches:
        argv += ["--calibration", str(batch)]
    assert main(argv) == 0
    fix = json.loads((out / "fix.json").read_text())
    assert fix["met"] is True
    assert fix["candidates"][0]["why"] == "named by the report: first divergence"
    # conv2d_2 is the culprit's second conv; its innermost module comes first.
    assert fix["candidates"][0]["module"] == "culprit.contract"
    assert fix["candidates"][1]["module"] == "culprit"  # the block holding it, next
    assert fix["best"]["keep_float"] == ["culprit"]
    assert fix["baseline"]["output_snr_db"] < 35 <= fix["fixed_session"]["output_snr_db"]
    assert (out / "fixed" / "run.etdp").is_file() and (out / "fixed" / "capture_float.gscap.safetensors").is_file()
    assert "| `culprit` |" in (out / "fix.md").read_text()

    # The snippet, pasted into an export script, gives the verified number again.
    scope: dict = {}
    exec((out / "snippet.py").read_text(), scope)  # noqa: S102 - our own output, the user's next step
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    model, inputs = zoo_fix.build()
    float_program = export(model, inputs)
    prepared = prepare_pt2e(float_program.module(), scope["quantizer"])
    with torch.no_grad():
        for batch in zoo_fix.calibration():
            prepared(*batch)
    quantized = export(convert_pt2e(prepared), inputs)
    with torch.no_grad():
        snr = output_snr_db([model(*inputs)], [quantized.module()(*inputs)])
    assert snr >= 35, snr  # the simulation of the pasted configuration meets the target too


def test_a_target_no_set_meets_writes_the_best_found_and_exits_3(culprit, tmp_path: Path) -> None:
    _, saved, _ = culprit
    out = tmp_path / "fix"
    assert main(["fix", str(saved), "-o", str(out), "--target", "snr=200", "--max-candidates", "1"]) == 3
    fix = json.loads((out / "fix.json").read_text())
    assert fix["met"] is False
    assert fix["stopped"].startswith("no set")
    assert fix["best"]["output_snr_db"] >= fix["baseline"]["output_snr_db"]


def test_metrics_targets_and_report_mapping() -> None:
    a = torch.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
    assert output_snr_db([a], [a]) == math.inf
    assert output_snr_db([a], [a + 0.1]) == pytest.approx(10 * math.log10(28 / (6 * 0.01)))
    assert top1_agreement(a, torch.tensor([[0.0, 0.0, 9.0], [0.0, 9.0, 0.0]])) == 0.5
    assert Target.parse("snr=30") == Target("snr", 30.0)
    for bad in ("snr", "loss=3", "snr=x", "top1=2", "snr=inf"):
        with pytest.raises(CaptureFormatError):
            Target.parse(bad)
    modules = {"a": ["conv2d"], "b": ["linear"], "b.c": ["linear"]}
    report = {
        "first_divergence": {"aot_ops": ["linear", "quantize_per_tensor_3"]},
        "introducers": [{"aot_ops": ["softmax"], "gain_db": 20.0, "added_rel_l2": 0.5}],
    }
    named, skipped = report_candidates(report, modules)
    # A delegate's one row names a group, not a part: said, not tried.
    _, coarse = report_candidates({"first_divergence": {"aot_ops": ["conv2d", "linear", "x"]}}, {"a": ["conv2d"], "b": ["linear"], "c": ["x"]})
    assert coarse and "a delegate's output" in coarse[0]
    assert named == [
        ("b.c", "named by the report: first divergence"),
        ("b", "named by the report: first divergence (holds b.c)"),
    ]
    assert skipped == ["softmax"]


class _Refusing(type(RECIPES["xnnpack-int8"])):
    """A recipe whose quantiser refuses one module, as a quantiser refuses an op it cannot take."""

    def quantize(self, float_program, calibration, keep_float):
        if "stem" in keep_float or not keep_float and self.per_channel:
            raise RuntimeError("cannot quantise this")
        return super().quantize(float_program, calibration, keep_float)


def test_a_configuration_that_does_not_lower_is_a_result_not_a_stop() -> None:
    from gapscope_capture.fix import search_fix

    model, inputs = zoo_fix.build()
    program = export(model, inputs)
    runner = _Runner(program, inputs, zoo_fix.calibration(1), _Refusing(), Target.parse("snr=1"))
    trial = runner.run(["stem"])
    assert trial.output_snr_db is None and trial.error == "RuntimeError: cannot quantise this"
    assert runner.run(["no.such.module"]).error is None  # a module no node comes from: nothing kept
    # A candidate that fails is listed with its error; the search goes on.
    result = search_fix(
        program, inputs, _Refusing(), Target.parse("snr=35"), calibration=zoo_fix.calibration(1), max_candidates=2
    )
    assert [c.module for c in result.candidates] == ["stem", "culprit"]  # graph order without a report
    failed = [c for c in result.candidates if c.module == "stem"]
    assert failed and failed[0].trial.error and failed[0].recovered_db is None
    assert result.met
    # The recipe failing as it is: nothing to compare with, a located error.
    with pytest.raises(CaptureFormatError, match="does not lower or run as it is"):
        search_fix(program, inputs, _Refusing(per_channel=True), Target.parse("snr=35"))


def test_parts_are_called_modules_never_a_quarter_of_the_model_and_nested_twins_once() -> None:
    from gapscope_capture.fix import quantizable_modules

    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Linear(8, 8))

        def forward(self, x):
            return self.inner(x)

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = torch.nn.ModuleList([Block() for _ in range(5)])  # a container never called

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    parts = quantizable_modules(export(Net().eval(), (torch.randn(2, 8),)), RECIPES["xnnpack-int8"])
    # Each Linear, and each block once, by its innermost name (layers.0 and layers.0.inner
    # hold the same two linears); never the ModuleList, which no node is called in.
    assert "layers" not in parts
    assert "layers.0.inner" in parts and "layers.0" not in parts
    assert "layers.0.inner.0" in parts and len(parts) == 15
    # A block holding more than a quarter of the quantised ops (and more than two) is no advice.
    class Deep(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = torch.nn.Sequential(*(torch.nn.Linear(8, 8) for _ in range(3)))
            self.b = torch.nn.Sequential(*(torch.nn.Linear(8, 8) for _ in range(3)))

        def forward(self, x):
            return self.b(self.a(x))

    deep = quantizable_modules(export(Deep().eval(), (torch.randn(2, 8),)), RECIPES["xnnpack-int8"])
    assert "a" not in deep and "b" not in deep and "a.0" in deep and len(deep) == 6
