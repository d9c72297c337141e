"""Which parts to keep in higher precision, verified before the user applies it (issue 59).

``gapscope-capture fix`` takes the float program (exported before
quantisation), its inputs, calibration data and a quantisation recipe
(``fix_recipes``), and answers "what do I change?":

1. **Baseline.** The recipe as it is: quantised, lowered, run on this machine
   through ExecuTorch's runtime, and its program outputs compared with the
   float model's (the SNR of ``docs/metrics.md``, the worst output; or the
   share of rows whose arg-max agrees).
2. **Sensitivity.** Each candidate (a module holding ops the recipe quantises;
   the ones a Gapscope report names first, when one is given) kept in float on
   its own: quantised, lowered, run, compared. What it recovers is its output
   SNR less the baseline's.
3. **Greedy search.** Candidates added in order of what they recovered, each
   set verified by a run of its own, a candidate kept only when the set gets
   better, until the target is met, the candidates run out or the time budget
   is spent.

Every number is of a program that was lowered and run, never an estimate:
the cost of each trial (the .pte's size, the ops left out of the delegate, the
median of a few timed runs) is measured on it. Each trial reuses the exported
float program and the calibration data. The best set found is written as a
Gapscope session (``fixed/``: ETRecord, .pte, ETDump and debug buffer, its
quantised simulation and float reference), openable as B beside the original,
and as a snippet of the recipe's configuration (``fix_output``).
"""

from __future__ import annotations

import logging
import math
import statistics
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import torch
from torch.export import ExportedProgram

from gapscope_capture.capture_errors import CaptureFormatError

log = logging.getLogger(__name__)

FIXED_SESSION = "fixed"
TIMED_RUNS = 5
MIN_GAIN_DB = 0.1  # what a part must add to the set's SNR to stay in it
MAX_BLOCK_SHARE = 0.25  # a block holding more of the quantised ops is no candidate
DEBUG_BUFFER_SIZE = 16 << 20


@dataclass(frozen=True)
class Target:
    """``snr=30`` (output SNR in dB, at least) or ``top1=0.99`` (arg-max agreement, at least)."""

    metric: str
    value: float

    @staticmethod
    def parse(text: str) -> "Target":
        name, sep, number = text.partition("=")
        if not sep or name not in ("snr", "top1"):
            raise CaptureFormatError(f"--target '{text}': give snr=DB or top1=SHARE (e.g. snr=30, top1=0.99)")
        try:
            value = float(number)
        except ValueError:
            raise CaptureFormatError(f"--target '{text}': '{number}' is not a number") from None
        if not math.isfinite(value) or (name == "top1" and not 0 <= value <= 1):
            raise CaptureFormatError(f"--target '{text}': out of range")
        return Target(name, value)

    def met(self, trial: "Trial") -> bool:
        value = trial.output_snr_db if self.metric == "snr" else trial.top1
        return value is not None and value >= self.value

    def __str__(self) -> str:
        return f"{self.metric}={self.value:g}"


@dataclass
class Trial:
    """One configuration, lowered and run: its numbers and its cost."""

    keep_float: list[str]
    output_snr_db: float | None = None
    top1: float | None = None
    size_bytes: int = 0
    ops_outside_delegates: int = 0
    latency_ms: float | None = None
    seconds: float = 0.0
    error: str | None = None


@dataclass
class Candidate:
    module: str
    ops: list[str]
    why: str  # "named by the report: first divergence", "holds quantised ops"
    trial: Trial | None = None
    recovered_db: float | None = None


@dataclass
class FixResult:
    recipe: str
    target: str
    baseline: Trial
    candidates: list[Candidate] = field(default_factory=list)
    search: list[Trial] = field(default_factory=list)
    best: Trial | None = None
    met: bool = False
    stopped: str = ""  # why the search stopped
    snippet: str = ""
    elapsed_s: float = 0.0
    budget_s: float = 0.0
    skipped: list[str] = field(default_factory=list)  # report ops no module holds
    # What ran the trials (float outputs computed once): fix_output runs the best set
    # again through it to write the verified session.
    runner: Any = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        def trial(t: Trial | None) -> dict[str, Any] | None:
            return None if t is None else {k: _finite(v) for k, v in asdict(t).items()}

        return {
            "recipe": self.recipe,
            "target": self.target,
            "baseline": trial(self.baseline),
            "candidates": [
                {
                    "module": c.module,
                    "ops": c.ops,
                    "why": c.why,
                    "recovered_db": _finite(c.recovered_db),
                    "trial": trial(c.trial),
                }
                for c in self.candidates
            ],
            "search": [trial(t) for t in self.search],
            "best": trial(self.best),
            "met": self.met,
            "stopped": self.stopped,
            "snippet": self.snippet,
            "elapsed_s": round(self.elapsed_s, 3),
            "budget_s": self.budget_s,
            "skipped": self.skipped,
        }


def _finite(value: Any) -> Any:
    """JSON has no infinity: an identical output's SNR is written as the string "inf"."""
    if isinstance(value, float) and not math.isfinite(value):
        return "inf" if value > 0 else "-inf" if value < 0 else "nan"
    return value


def output_snr_db(reference: Sequence[torch.Tensor], runtime: Sequence[torch.Tensor]) -> float:
    """The worst program output's SNR, 10·log10(Σa² / Σ(a − b)²) in float64 (Gapscope's and
    ExecuTorch's formula; +inf when an output is identical)."""
    worst = math.inf
    for a, b in zip(reference, runtime):
        a64, b64 = a.detach().double().flatten(), b.detach().double().flatten()
        noise = float(((a64 - b64) ** 2).sum())
        signal = float((a64**2).sum())
        snr = math.inf if noise == 0 else (-math.inf if signal == 0 else 10 * math.log10(signal / noise))
        worst = min(worst, snr)
    return worst


def top1_agreement(reference: torch.Tensor, runtime: torch.Tensor) -> float:
    """Share of rows (every index but the last dimension's) whose arg-max agrees."""
    a = reference.detach().reshape(-1, reference.shape[-1])
    b = runtime.detach().reshape(-1, runtime.shape[-1])
    return float((a.argmax(-1) == b.argmax(-1)).double().mean())


def quantizable_modules(float_program: ExportedProgram, recipe: Any) -> dict[str, list[str]]:
    """Every part holding nodes the recipe quantises, with those nodes, in graph order: each
    innermost module; each module called above them that holds two or more and at most
    MAX_BLOCK_SHARE of the quantised nodes (a block kept whole: a range that is wide only
    inside it is never quantised then; a quarter of the model in float is no advice); and
    each op the model calls outside any submodule, as ``op:<node name>`` (a softmax in
    forward()). Blocks are the modules the nodes' ``nn_module_stack`` names, so a
    container that is never called (an ``nn.ModuleList``) is none."""
    from gapscope_capture.fix_recipes import OP_PREFIX

    def normalized(path: str) -> str:
        return path[len("L['self'].") :] if path.startswith("L['self'].") else path

    leaves: dict[str, list[str]] = {}
    blocks: dict[str, list[str]] = {}
    total = 0
    for node in float_program.graph.nodes:
        if node.op != "call_function" or not recipe.quantizes(str(node.target)):
            continue
        total += 1
        paths = [normalized(v[0]) for v in (node.meta.get("nn_module_stack") or {}).values()]
        paths = [p for p in paths if p]
        leaf = paths[-1] if paths else OP_PREFIX + node.name
        for block in paths[:-1]:
            blocks.setdefault(block, []).append(node.name)
        blocks.setdefault(leaf, []).append(node.name)
        leaves.setdefault(leaf, []).append(node.name)
    cap = max(2, int(MAX_BLOCK_SHARE * total))
    kept = {
        part: ops
        for part, ops in blocks.items()
        if part in leaves or (sum(1 for leaf in leaves if leaf.startswith(part + ".")) >= 2 and len(ops) <= cap)
    }
    # Nested blocks holding the same ops keep one run's worth: the innermost name.
    innermost: dict[frozenset[str], str] = {}
    for part, ops in kept.items():
        key = frozenset(ops)
        if key not in innermost or part.count(".") > innermost[key].count("."):
            innermost[key] = part
    return {part: ops for part, ops in kept.items() if innermost[frozenset(ops)] == part}


def report_candidates(report: dict[str, Any], modules: dict[str, list[str]]) -> tuple[list[tuple[str, str]], list[str]]:
    """The modules holding the ops a Gapscope JSON report flags (``gapscope-cli compare --json``),
    most telling first: the first divergence, the strongest gains, the top of Added (its
    ``introducers``). An op is found in the float program by its node name, which PT2E keeps.
    Returns (module, why) pairs and the flagged ops no quantised module holds."""
    owner = {op: module for module, ops in modules.items() for op in ops}
    flagged: list[tuple[list[str], str]] = []
    first = report.get("first_divergence")
    if isinstance(first, dict):
        flagged.append((list(first.get("aot_ops") or []), "first divergence"))
    introducers = [i for i in report.get("introducers") or [] if isinstance(i, dict)]
    gains = sorted((i for i in introducers if _number(i.get("gain_db"))), key=lambda i: -i["gain_db"])
    flagged += [(list(i.get("aot_ops") or []), f"error grows {i['gain_db']:.0f} dB") for i in gains[:5]]
    added = sorted((i for i in introducers if _number(i.get("added_rel_l2"))), key=lambda i: -i["added_rel_l2"])
    flagged += [(list(i.get("aot_ops") or []), f"adds rel. L2 {i['added_rel_l2']:.3g}") for i in added[:5]]
    out: list[tuple[str, str]] = []
    skipped: list[str] = []
    for ops, why in flagged:
        owners = list(dict.fromkeys(owner[op] for op in ops if op in owner))
        if len(owners) > 2:
            # A delegate's one row (XNNPACK logs only its outputs): it names the whole
            # group, not a part; the host twin's report names ops.
            note = f"a row of {len(ops)} ops ({why}): a delegate's output, not a part; give the host twin's report"
            if note not in skipped:
                skipped.append(note)
            continue
        module = owners[0] if owners else None
        if module is None:
            skipped.extend(op for op in ops if op not in skipped)
            continue
        # The op's module, then each block holding it, nearest first: a range wide
        # only inside a block is kept from quantisation by keeping the block.
        parts = [module] if module.startswith("op:") else module.split(".")
        for depth in range(len(parts), 0, -1):
            enclosing = ".".join(parts[:depth])
            if enclosing in modules and enclosing not in (m for m, _ in out):
                out.append((enclosing, f"named by the report: {why}" + ("" if enclosing == module else f" (holds {module})")))
    return out, skipped


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


class _Runner:
    """Quantises, lowers and runs one configuration; the float outputs computed once."""

    def __init__(self, float_program: ExportedProgram, inputs: Sequence[Any], calibration, recipe, target: Target):
        self.float_program = float_program
        self.inputs = tuple(inputs)
        self.calibration = [tuple(b) for b in calibration]
        self.recipe = recipe
        self.target = target
        with torch.no_grad():
            self.reference = _flat_tensors(float_program.module()(*self.inputs))

    def run(self, keep_float: Sequence[str], session: Path | None = None) -> Trial:
        from executorch.extension.pybindings.portable_lib import _load_for_executorch_from_buffer

        trial = Trial(keep_float=list(keep_float))
        started = time.monotonic()
        try:
            quantized = self.recipe.quantize(self.float_program, self.calibration, keep_float)
            edge = self.recipe.lower(quantized, self.inputs, session is not None)
            trial.ops_outside_delegates = _ops_outside_delegates(edge.exported_program())
            program = self.recipe.to_executorch(edge)
            trial.size_bytes = len(program.buffer)
            if session is not None:
                from gapscope_capture.host_run import save_and_run

                session.mkdir(parents=True, exist_ok=True)
                outputs = save_and_run(session, program, self.inputs, DEBUG_BUFFER_SIZE)
            else:
                module = _load_for_executorch_from_buffer(program.buffer)
                outputs = list(module.forward(self.inputs))
                times = []
                for _ in range(TIMED_RUNS):
                    t0 = time.perf_counter()
                    module.forward(self.inputs)
                    times.append((time.perf_counter() - t0) * 1000)
                trial.latency_ms = statistics.median(times)
            runtime = _flat_tensors(outputs)
            trial.output_snr_db = output_snr_db(self.reference, runtime)
            if self.reference and self.reference[0].dim() >= 1 and self.reference[0].shape[-1] >= 2:
                trial.top1 = top1_agreement(self.reference[0], runtime[0])
        except Exception as exc:  # a configuration the recipe cannot lower or run is a result, not a stop
            trial.error = f"{type(exc).__name__}: {exc}"
        trial.seconds = time.monotonic() - started
        return trial


def _flat_tensors(value: Any) -> list[torch.Tensor]:
    from torch.utils._pytree import tree_leaves

    return [t for t in tree_leaves(value) if isinstance(t, torch.Tensor)]


def _ops_outside_delegates(program: ExportedProgram) -> int:
    """Ops the partitioner left to the CPU (not a delegate call, a getitem, or a quantise node)."""
    count = 0
    for node in program.graph.nodes:
        if node.op != "call_function":
            continue
        name = str(node.target)
        if "executorch_call_delegate" in name or "getitem" in name or "quantize_per" in name:
            continue
        count += 1
    return count


def _score(target: Target, trial: Trial) -> float:
    value = trial.output_snr_db if target.metric == "snr" else trial.top1
    return -math.inf if value is None or trial.error else value


def search_fix(
    float_program: ExportedProgram,
    inputs: Sequence[Any],
    recipe: Any,
    target: Target,
    *,
    calibration: Sequence[Sequence[Any]] | None = None,
    report: dict[str, Any] | None = None,
    budget_s: float = 300.0,
    max_candidates: int = 24,
    progress: Callable[[str], None] | None = None,
) -> FixResult:
    """The sensitivity of each candidate and the greedy search for a set that meets ``target``."""
    say = progress or (lambda line: log.info("%s", line))
    started = time.monotonic()
    runner = _Runner(float_program, inputs, calibration or [inputs], recipe, target)
    baseline = runner.run([])
    if baseline.error:
        raise CaptureFormatError(f"the recipe '{recipe.name}' does not lower or run as it is: {baseline.error}")
    result = FixResult(recipe=recipe.name, target=str(target), baseline=baseline, budget_s=budget_s, runner=runner)
    say(f"baseline ({recipe.name}): {_describe(target, baseline)}")
    modules = quantizable_modules(float_program, recipe)
    named: list[tuple[str, str]] = []
    if report is not None:
        named, result.skipped = report_candidates(report, modules)
    chosen = named + [(m, "holds quantised ops") for m in modules if m not in {n for n, _ in named}]
    result.candidates = [Candidate(m, modules[m], why) for m, why in chosen[:max_candidates]]

    def spent() -> bool:
        return time.monotonic() - started > budget_s

    best = baseline
    if target.met(baseline):
        result.stopped = "the recipe as it is meets the target"
    for i, c in enumerate(result.candidates):
        if target.met(baseline) or spent():
            break
        c.trial = runner.run([c.module])
        base, score = _score(target, baseline), _score(target, c.trial)
        c.recovered_db = None if c.trial.error or not math.isfinite(base) else score - base
        say(f"[{i + 1}/{len(result.candidates)}] {c.module} in float: {_describe(target, c.trial)}")
        if _score(target, c.trial) > _score(target, best):
            best = c.trial
    # Greedy: the most recovering first; a candidate stays when the set gets better.
    ranked = sorted(
        (c for c in result.candidates if c.trial and not c.trial.error),
        key=lambda c: -_score(target, c.trial),
    )
    kept: list[str] = []
    current = baseline
    for c in ranked:
        if target.met(current) or spent():
            break
        if not kept:
            trial = c.trial  # that set alone was run already
        else:
            trial = runner.run(kept + [c.module])
            result.search.append(trial)
            say(f"search: {', '.join(trial.keep_float)} in float: {_describe(target, trial)}")
        # A part stays only when the set gets measurably better: a rounding-level
        # change (under MIN_GAIN_DB) is not worth its bytes.
        if _score(target, trial) > _score(target, current) + (MIN_GAIN_DB if target.metric == "snr" else 0):
            kept, current = trial.keep_float, trial
    if _score(target, current) > _score(target, best) or (current is not baseline and target.met(current)):
        best = current
    result.best = best
    result.met = target.met(best)
    if not result.stopped:
        result.stopped = (
            "target met"
            if result.met
            else "time budget spent"
            if spent()
            else "no set of the candidates meets the target; the best found is given"
        )
    note = (
        f"gapscope-capture fix: output {_describe(target, baseline)} -> {_describe(target, best)}, "
        f"verified by a run of this configuration"
    )
    result.snippet = recipe.snippet(best.keep_float, note)
    result.elapsed_s = time.monotonic() - started
    return result


def _describe(target: Target, trial: Trial) -> str:
    if trial.error:
        return f"failed ({trial.error})"
    snr = "n/a" if trial.output_snr_db is None else f"{trial.output_snr_db:.1f} dB"
    text = f"SNR {snr}"
    if target.metric == "top1" and trial.top1 is not None:
        text += f", top-1 {trial.top1:.3f}"
    return text
