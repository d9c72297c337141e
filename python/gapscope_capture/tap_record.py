"""One tap of ExecuTorch's intermediate-output tap, as the capture format holds it
(docs/formats/aot-capture.md, "Tap"). Knows nothing about ExecuTorch."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from gapscope_capture.capture_errors import CaptureFormatError

# The reducers of ExecuTorch's intermediate-output tap (executorch.devtools.
# intermediate_output_tap, 1.5.1) and the fields STATS writes, in its order.
TAP_FULL_TENSOR = "FULL_TENSOR"
TAP_STATS = "STATS"
TAP_STATS_FIELDS = (
    "min",
    "max",
    "mean",
    "abs_max",
    "abs_mean",
    "std",
    "rms",
    "l1_norm",
    "l2_norm",
    "nan_count",
    "inf_count",
    "zero_count",
    "p99_abs",
)


@dataclass
class TapRecord:
    """One tap of ExecuTorch's intermediate-output tap: program output ``output_index``
    is the value (full, or reduced by ``reducer``) of the op ``node_name``.

    The fields are ExecuTorch's ``TapSpec``'s; ``debug_handle`` is the tapped
    node's handle in the capture's reference graph (None when it has none), by
    which Gapscope places the tap in the delegate that computes it. Its reference
    value is ``reference_outputs[output_index]`` of the same capture.
    """

    output_index: int
    node_name: str
    op_target: str
    reducer: str
    fields: tuple[str, ...] = ()
    stack_trace: str | None = None
    module_path: str | None = None
    module_class: str | None = None
    debug_handle: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if isinstance(self.output_index, bool) or not isinstance(self.output_index, int) or self.output_index < 0:
            raise CaptureFormatError(f"tap output_index must be an integer of 0 or more, not {self.output_index!r}")
        if not isinstance(self.reducer, str) or not self.reducer:
            raise CaptureFormatError(f"tap {self.node_name!r}: reducer must be a name, not {self.reducer!r}")
        self.fields = tuple(self.fields)
        if not all(isinstance(f, str) for f in self.fields):
            raise CaptureFormatError(f"tap {self.node_name!r}: fields must be names")
        if self.debug_handle is not None:
            self.debug_handle = tuple(self.debug_handle)
            if not self.debug_handle or not all(
                isinstance(h, int) and not isinstance(h, bool) and h > 0 for h in self.debug_handle
            ):
                raise CaptureFormatError(
                    f"tap {self.node_name!r}: debug_handle must be positive integers, not {self.debug_handle!r}"
                )

    def to_json(self) -> dict[str, Any]:
        return {
            "output_index": self.output_index,
            "node_name": self.node_name,
            "op_target": self.op_target,
            "reducer": self.reducer,
            "fields": list(self.fields),
            "stack_trace": self.stack_trace,
            "module_path": self.module_path,
            "module_class": self.module_class,
            "debug_handle": None if self.debug_handle is None else list(self.debug_handle),
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "TapRecord":
        handle = raw.get("debug_handle")
        return cls(
            output_index=raw["output_index"],
            node_name=raw["node_name"],
            op_target=raw["op_target"],
            reducer=raw["reducer"],
            fields=tuple(raw.get("fields") or ()),
            stack_trace=raw.get("stack_trace"),
            module_path=raw.get("module_path"),
            module_class=raw.get("module_class"),
            debug_handle=None if handle is None else tuple(handle),
        )
