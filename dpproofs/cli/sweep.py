"""``dpproofs sweep``: epsilon (or the sigma meeting a target epsilon) over a grid of training runs.

A grid is the product of the values given for each axis of :data:`AXES` (``--sigma 0.8 1 1.2
--epochs 1 2 5 --delta 1e-5``), or a file (``--grid FILE``): a CSV whose rows are the settings
(header: axis names; an empty cell takes the flag's value), or a TOML / YAML table of axis names to a
value or a list of values (their product), or with a list ``settings`` of such tables (each one its
own product). Flags give the values of the axes a file leaves out.

Each setting is one run, as ``dpproofs epsilon`` (``sigma`` given) or ``dpproofs sigma``
(``target_epsilon`` given) describes it, and gives one row: the setting, then ``q``, ``steps``,
``sigma``, ``epsilon`` (an upper bound; for a target, the epsilon the calibrated sigma achieves),
``epsilon_lower`` and ``epsilon_upper`` (the tight accountant's bracket, the exact value in between;
for RDP the lower end is 0), ``order`` (RDP) and ``error`` (empty, or why the setting has no
answer: a failing setting is reported in its row while the others finish).

Settings run in parallel through :class:`dpproofs.parallel.Runner` (``--workers N``: local worker
processes; ``--scheduler ADDRESS``: a running Dask cluster). Each setting is a pure
function of its row (:func:`evaluate`) and the rows are written in grid order, floats as their
shortest exact ``repr``: the same grid gives the same bytes whatever the number of workers.
"""

import csv
import io
import itertools
import json
import math
import sys
import time
import types
from collections.abc import Callable

from dpproofs.errors import InvalidArgument

HELP = "epsilon or sigma over a grid of training runs (CSV/JSON table, optional figure; Dask parallel)"

__all__ = ["HELP", "AXES", "OUTPUTS", "COLUMNS", "add_arguments", "run", "render", "sweep", "settings_of", "evaluate",
           "to_csv", "read_grid"]

#: Axis name -> (type, default): the inputs of a setting, in the order of the table's columns.
AXES = {
    "sampling": (str, "poisson"),
    "relation": (str, "add_remove"),
    "accountant": (str, "rdp"),
    "dataset_size": (int, None),
    "batch_size": (int, None),
    "epochs": (float, None),
    "q": (float, None),
    "steps": (int, None),
    "sigma": (float, None),
    "target_epsilon": (float, None),
    "delta": (float, None),
    "conversion": (str, "improved"),
}
#: Output columns of a row, after the axes (``q`` and ``steps`` are filled when derived).
OUTPUTS = ("epsilon", "epsilon_lower", "epsilon_upper", "order", "error")
COLUMNS = tuple(AXES) + OUTPUTS


def _parse(name, text):
    """A cell or flag value as the axis's type; InvalidArgument names the axis and the value."""
    kind = AXES[name][0]
    if text is None or (isinstance(text, str) and text.strip() == ""):
        return None
    if kind is str:
        return str(text).strip()
    try:
        value = float(text) if kind is float else int(float(text)) if float(text).is_integer() else None
    except (TypeError, ValueError):
        value = None
    if value is None or not math.isfinite(value):  # nan or inf would also make the JSON table invalid
        raise InvalidArgument(f"{name}={text!r} must be {'a finite number' if kind is float else 'an integer'}")
    return value


def _product(table):
    """The settings of one table: axis -> value or list of values, their product (last axis fastest)."""
    unknown = sorted(set(table) - set(AXES))
    if unknown:
        raise InvalidArgument(f"grid axes {unknown} are unknown: the axes are {', '.join(AXES)}")
    names = [name for name in AXES if name in table]
    values = []
    for name in names:
        raw = table[name]
        raw = list(raw) if isinstance(raw, (list, tuple)) else [raw]
        if not raw:
            raise InvalidArgument(f"grid axis {name} has no values")
        values.append([_parse(name, v) for v in raw])
    return [dict(zip(names, combination)) for combination in itertools.product(*values)]


def read_grid(path):
    """The settings a grid file lists (CSV rows, or the product of a TOML / YAML table).

    Args:
        path (str): a ``.csv``, ``.toml``, ``.yaml`` or ``.yml`` file.

    Returns:
        list[dict]: one dict per setting, axis name -> value (axes left out are absent).

    Raises:
        InvalidArgument: the file cannot be read, has another suffix, or names an unknown axis.
    """
    suffix = str(path).rsplit(".", 1)[-1].lower()
    if suffix not in ("csv", "toml", "yaml", "yml"):
        raise InvalidArgument(f"grid={str(path)!r} must end in .csv, .toml, .yaml or .yml")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise InvalidArgument(f"grid={str(path)!r} cannot be read: {error.strerror}") from None
    if suffix == "csv":
        reader = csv.DictReader(io.StringIO(data.decode("utf-8")))
        settings = []
        for row in reader:
            settings.extend(_product({k.strip(): v for k, v in row.items() if v is not None and v.strip() != ""}))
        return settings
    if suffix == "toml":
        import tomllib

        try:
            table = tomllib.loads(data.decode("utf-8"))
        except tomllib.TOMLDecodeError as error:
            raise InvalidArgument(f"grid={str(path)!r} is not valid TOML: {error}") from None
    elif suffix in ("yaml", "yml"):
        try:
            import yaml
        except ModuleNotFoundError:
            raise InvalidArgument(f"grid={str(path)!r}: a YAML grid needs PyYAML (pip install pyyaml); "
                                  "or write it as TOML or CSV") from None
        try:
            table = yaml.safe_load(data) or {}
        except yaml.YAMLError as error:
            raise InvalidArgument(f"grid={str(path)!r} is not valid YAML: {error}") from None
    if not isinstance(table, dict):
        raise InvalidArgument(f"grid={str(path)!r} must hold a table of axis names to values")
    if "settings" in table:
        base = {k: v for k, v in table.items() if k != "settings"}
        return [s for entry in table["settings"] for s in _product({**base, **entry})]
    return _product(table)


def settings_of(grid, defaults=None):
    """Complete settings (every axis of :data:`AXES`, in order) from a grid.

    Args:
        grid (dict | list[dict] | str): axis -> value or list of values (their product), a list of
            such dicts (one after the other), or the path of a grid file (:func:`read_grid`).
        defaults (dict | None): values for the axes the grid leaves out.

    Returns:
        list[dict]: the settings, in grid order.

    Raises:
        InvalidArgument: an unknown axis, a value of the wrong type, or an empty grid.
    """
    if isinstance(grid, str) or hasattr(grid, "__fspath__"):
        listed = read_grid(grid)
    elif isinstance(grid, dict):
        listed = _product(grid)
    else:
        listed = [s for table in grid for s in _product(table)]
    if not listed:
        raise InvalidArgument("the grid has no settings")
    base = {name: default for name, (_, default) in AXES.items()}
    base.update({k: v for k, v in (defaults or {}).items() if v is not None})
    return [{name: setting.get(name, base[name]) if setting.get(name) is not None else base[name] for name in AXES}
            for setting in listed]


def evaluate(setting):
    """The row of one setting: a pure function of it (runs in a worker or in this process).

    Args:
        setting (dict): every axis of :data:`AXES`; ``sigma`` or ``target_epsilon`` (one of them).

    Returns:
        dict: the setting with :data:`OUTPUTS` filled (``error`` empty).

    Raises:
        InvalidArgument: the setting is not a valid run (:func:`dpproofs.cli._run.run_of`).
    """
    from dpproofs.cli import _run

    if (setting["sigma"] is None) == (setting["target_epsilon"] is None):
        raise InvalidArgument("a setting needs exactly one of sigma and target_epsilon")
    if setting["delta"] is None:
        raise InvalidArgument("a setting needs delta")
    calibrating = setting["target_epsilon"] is not None
    args = types.SimpleNamespace(**{**setting, "steps": None if setting["steps"] is None else str(setting["steps"]),
                                    "min_steps": 1 if calibrating else 0, "refine": False})
    q, steps, description = _run.run_of(args)
    row = dict(setting, q=q, steps=steps)
    sigma = setting["sigma"]
    if calibrating:
        from dpproofs.accountant.calibrate import calibrate_sigma

        sigma = calibrate_sigma(epsilon=setting["target_epsilon"], delta=setting["delta"], q=q, steps=steps,
                                **_run.calibration_options(args))
        row["sigma"] = sigma
    accountant = _run.accountant_of(args).compose(*_run.composition_of(args, description, sigma))
    bounds = accountant.epsilon_bounds(setting["delta"], **_run.options_for(accountant.epsilon_bounds, args))
    row.update(epsilon=bounds.upper, epsilon_lower=bounds.lower, epsilon_upper=bounds.upper,
               order=getattr(bounds, "order", None), error=None)
    return row


def _row_of(setting, outcome):
    from dpproofs.parallel import Failure

    if isinstance(outcome, Failure):
        row = dict(setting, epsilon=None, epsilon_lower=None, epsilon_upper=None, order=None, error=str(outcome))
        return row
    return outcome


def sweep(grid: "dict | list[dict] | str", *, workers: "int | None" = 1, scheduler: "str | None" = None,
          defaults: "dict | None" = None, progress: "Callable[[int, int], None] | None" = None) -> "list[dict]":
    """Evaluate every setting of a grid; rows in grid order, the same whatever runs them.

    Args:
        grid (dict | list[dict] | str): the grid (:func:`settings_of`).
        workers (int | None): local worker processes (forked from this one); 1 runs in this
            process; None, one per core.
        scheduler (str | None): address of a running Dask scheduler (``tcp://host:8786``).
        defaults (dict | None): values of the axes the grid leaves out.
        progress (callable | None): called as ``progress(done, total)`` after each setting.

    Returns:
        list[dict]: one row per setting (:data:`COLUMNS`); a failing setting has its ``error``.

    Raises:
        InvalidArgument: a bad grid, ``workers`` outside [1, 1024], or a scheduler without Dask.
    """
    from dpproofs.parallel import Runner

    settings = settings_of(grid, defaults)
    done = [0]

    def step(index, outcome):
        done[0] += 1
        if progress is not None:
            progress(done[0], len(settings))

    runner = Runner(workers=workers, scheduler=scheduler,
                    preload=("dpproofs.cli.sweep", "dpproofs.accountant.pld.accountant"))
    if runner.mode == "local":
        runner.workers = min(runner.workers, len(settings))
    with runner:
        outcomes = runner.map(evaluate, settings, on_result=step)
    return [_row_of(s, o) for s, o in zip(settings, outcomes)]


def _cell(value):
    """A CSV cell: floats as their shortest round-tripping repr, None as empty."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def to_csv(rows):
    """The table as CSV text (header :data:`COLUMNS`, ``\\n`` line ends), deterministic byte for byte.

    Args:
        rows (list[dict]): rows of :func:`sweep`.

    Returns:
        str: the CSV text.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow([_cell(row.get(name)) for name in COLUMNS])
    return out.getvalue()


# ---------------------------------------------------------------------------------------------- CLI


def add_arguments(parser):
    parser.add_argument("--grid", metavar="FILE", help="settings from a CSV, TOML or YAML file (flags fill the axes it "
                                                         "leaves out)")
    for name, (kind, default) in AXES.items():
        flag = "--epsilon" if name == "target_epsilon" else f"--{name.replace('_', '-')}"
        what = {"target_epsilon": "target epsilon: find the sigma that meets it",
                "sigma": "noise multiplier (noise std / clipping norm)"}.get(name, name.replace("_", " "))
        parser.add_argument(flag, dest=name, nargs="+", metavar=name.upper(),
                            help=f"{what}: one or more values" + (f" (default {default})" if default else ""))
    parser.add_argument("--out", metavar="PATH", help="write the table to PATH.csv and PATH.json")
    parser.add_argument("--figure", metavar="FILE", help="plot epsilon against epochs (or steps) per sigma, brackets "
                                                         "drawn (needs matplotlib)")
    parser.add_argument("--workers", type=int, default=None,
                        help="local worker processes (default: one per core; 1: this process)")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="a running Dask scheduler (tcp://host:8786)")


def _grid_of(args):
    flags = {name: getattr(args, name) for name in AXES if getattr(args, name, None) is not None}
    if args.grid is None:
        if not flags:
            raise InvalidArgument("the sweep needs a grid: --grid FILE, or axis flags such as --sigma 1 2 --delta 1e-5")
        return flags, None
    single = {}
    for name, values in flags.items():
        if len(values) != 1:
            raise InvalidArgument(f"--{name.replace('_', '-')} takes one value with --grid (the default of the axis), "
                                  f"got {len(values)}")
        single[name] = _parse(name, values[0])
    return args.grid, single


class _Bar:
    """``[#####.....] done/total, elapsed, about N s left`` on stderr: rewritten in place on a
    terminal, else one line per tenth of the grid."""

    def __init__(self, stream=None, clock=time.perf_counter):
        self.stream = sys.stderr if stream is None else stream
        self.clock, self.started = clock, clock()
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())

    def __call__(self, done, total):
        if not self.live and done != total and done % max(1, total // 10):
            return
        elapsed = self.clock() - self.started
        left = elapsed / done * (total - done)
        filled = int(20 * done / total)
        text = (f"[{'#' * filled}{'.' * (20 - filled)}] {done}/{total} settings, {elapsed:.0f} s elapsed"
                + ("" if done == total else f", about {left:.0f} s left"))
        self.stream.write(f"\r\x1b[K{text}" if self.live else f"{text}\n")
        if self.live and done == total:
            self.stream.write("\n")
        self.stream.flush()


def run(args):
    from dpproofs import _validate

    grid, defaults = _grid_of(args)
    workers = None if args.workers is None else _validate.integer("--workers", args.workers, 1, 1024)
    started = time.perf_counter()
    rows = sweep(grid, workers=workers, scheduler=args.scheduler, defaults=defaults, progress=_Bar())
    seconds = round(time.perf_counter() - started, 1)
    if args.out:
        for suffix, text in (("csv", to_csv(rows)), ("json", json.dumps(rows, indent=1) + "\n")):
            try:
                with open(f"{args.out}.{suffix}", "w", encoding="utf-8", newline="") as handle:
                    handle.write(text)
            except OSError as error:
                raise InvalidArgument(f"out={args.out!r}: {args.out}.{suffix} cannot be written: {error.strerror}") \
                    from None
    if args.figure:
        figure(rows, args.figure)
    failed = sum(1 for row in rows if row["error"])
    result = {"rows": rows, "summary": {"settings": len(rows), "failed": failed, "seconds": seconds,
                                        "out": args.out, "figure": args.figure}}
    return (1 if failed else 0), result


def figure(rows, path):
    """Plot epsilon against epochs (or steps), one line per other setting, brackets drawn.

    Args:
        rows (list[dict]): rows of :func:`sweep`.
        path (str): the image file to write (its suffix picks the format).

    Raises:
        InvalidArgument: matplotlib is not installed, or ``path`` cannot be written.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ModuleNotFoundError:
        raise InvalidArgument("--figure needs matplotlib: pip install 'dpproofs[docs]'") from None
    good = [r for r in rows if not r["error"]]
    x_name = "epochs" if any(r["epochs"] is not None for r in good) else "steps"
    varying = [n for n in AXES if n not in (x_name, "steps", "q") and len({r[n] for r in good}) > 1]
    lines = {}
    for row in good:
        lines.setdefault(tuple(row[n] for n in varying), []).append(row)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for key, members in lines.items():
        members.sort(key=lambda r: r[x_name])
        xs = [r[x_name] for r in members]
        ys = [r["epsilon"] for r in members]
        low = [r["epsilon"] - r["epsilon_lower"] for r in members]
        label = ", ".join(f"{n}={v:g}" if isinstance(v, float) else f"{n}={v}" for n, v in zip(varying, key))
        ax.errorbar(xs, ys, yerr=[low, [0.0] * len(ys)], marker="o", capsize=3, label=label or None)
    ax.set_xlabel(x_name)
    ax.set_ylabel("epsilon (upper bound)")
    ax.set_title("each bar reaches down to the lower end of the bracket", fontsize="small")
    if lines and any(k for k in lines):
        ax.legend(fontsize="small")
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as error:
        raise InvalidArgument(f"figure={path!r} cannot be written: {error.strerror}") from None
    finally:
        plt.close(fig)


def render(result):
    lines = []
    shown = ("sampling", "accountant", "dataset_size", "batch_size", "epochs", "q", "steps", "delta")
    header = f"{'#':>4} " + " ".join(f"{n[:10]:>10}" for n in shown) + f" {'sigma':>10} {'epsilon':>10}  bracket"
    lines.append(header)
    for index, row in enumerate(result["rows"]):
        cells = " ".join(f"{_short(row[n]):>10}" for n in shown)
        if row["error"]:
            tail = f"{_short(row['sigma']):>10} {'':>10}  error: {row['error']}"
        else:
            tail = (f"{_short(row['sigma']):>10} {_short(row['epsilon']):>10}  "
                    f"[{row['epsilon_lower']:.6g}, {row['epsilon_upper']:.6g}]")
        lines.append(f"{index:>4} {cells} {tail}")
    s = result["summary"]
    lines.append("")
    lines.append(f"{s['settings']} settings in {s['seconds']} s" + (f", {s['failed']} failed" if s["failed"] else "")
                 + (f"; table in {s['out']}.csv and {s['out']}.json" if s["out"] else "")
                 + (f"; figure in {s['figure']}" if s["figure"] else ""))
    return "\n".join(lines)


def _short(value):
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}" if math.isfinite(value) else str(value)
    return str(value)
