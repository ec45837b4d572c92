"""rehome sandbox prelude: runs the user's script like ChatGPT's Code
Interpreter would.

    python3 -B /opt/rehome/prelude.py SCRIPT

- the working directory is /mnt/data, where the input file is and where
  files written come back as outputs;
- matplotlib uses the non-interactive Agg backend; plt.show() saves every
  open figure as a PNG for the host to show inline, and figures still open
  when the script ends (or fails) are saved too, like a notebook's inline
  output;
- the value of a last bare expression is shown, like a notebook cell's
  (`df.head()` as a table), and display() shows values the same way;
- a traceback shows the script's frames only.

matplotlib is hooked only when the script imports it, so `print(1)` pays
nothing for it. Nor for the rest: the prelude imports only what is built in
(the traceback and JSON modules when they are needed), and the one-shot run
starts Python without `site` (-S): the prelude puts Debian's package
folders on sys.path and defines exit() and quit() itself, which is all that
`site` and matplotlib's namespace .pth did at each start.
"""

import _ast
import builtins
import os
import sys

# Debian's package folders, in site's order (python3 -c 'import sys;
# print(sys.path)' in the image).
_SITE_DIRS = (
    "/usr/local/lib/python%d.%d/dist-packages" % sys.version_info[:2],
    "/usr/lib/python3/dist-packages",
    "/usr/lib/python%d.%d/dist-packages" % sys.version_info[:2],
)


class _Quitter:
    """exit() and quit() as site defines them."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "Use %s() or Ctrl-D (i.e. EOF) to exit" % self.name

    def __call__(self, code=None):
        raise SystemExit(code)


def _site():
    """What `site` gives a script, for a Python started with -S."""
    if not sys.flags.no_site:
        return
    for d in _SITE_DIRS:
        if d not in sys.path and os.path.isdir(d):
            sys.path.append(d)
    for name in ("exit", "quit"):
        if not hasattr(builtins, name):
            setattr(builtins, name, _Quitter(name))

_plots = os.environ.pop("REHOME_PLOTS", "/tmp/.rehome/plots")
_count = 0


def _save_open_figures(plt):
    global _count
    for num in list(plt.get_fignums()):
        fig = plt.figure(num)
        _count += 1
        try:
            fig.savefig(os.path.join(_plots, "plot-%03d.png" % _count), format="png", dpi=100)
        except Exception as e:  # a broken figure must not hide the others
            print("rehome: could not save figure %s: %s" % (num, e), file=sys.stderr)
    plt.close("all")


def _patch_pyplot(plt):
    def show(*args, **kwargs):
        _save_open_figures(plt)

    show.__doc__ = "Save every open figure as an inline PNG (rehome sandbox)."
    plt.show = show


class _PyplotHook:
    """Patch matplotlib.pyplot right after its first import (a meta path
    finder: an object with find_spec, importlib.abc's interface without its
    import, which pulls in typing)."""

    def find_spec(self, name, path, target=None):
        if name != "matplotlib.pyplot":
            return None
        import importlib.util

        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        exec_module = loader.exec_module

        def exec_and_patch(module):
            exec_module(module)
            _patch_pyplot(module)

        loader.exec_module = exec_and_patch
        return spec


def _finish():
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        try:
            _save_open_figures(plt)
        except Exception as e:
            print("rehome: could not save figures: %s" % e, file=sys.stderr)


_displays = os.environ.pop("REHOME_DISPLAYS", "/tmp/.rehome/displays")
_shown = 0
# What one shown value may weigh, and how much of a table is shown, like
# pandas' own notebook display.
_TEXT_MAX = 64 * 1024
_TABLE_ROWS = 50
_TABLE_COLS = 30
_CELL_MAX = 200


def _write_display(item):
    """Hand one shown value to the runner: a JSON file it sends back after
    the code (the code can forge these too; the host caps and checks them
    like any output)."""
    global _shown
    import json

    _shown += 1
    try:
        os.makedirs(_displays, exist_ok=True)
        with open(os.path.join(_displays, "d-%05d.json" % _shown), "w") as f:
            json.dump(item, f, ensure_ascii=True)
    except OSError as e:
        print("rehome: could not show a value: %s" % e, file=sys.stderr)


def _cut(text, limit=_TEXT_MAX):
    return text if len(text) <= limit else text[:limit] + "\n…"


def _fmt(v):
    if isinstance(v, float):
        return "%.6g" % v
    return _cut(str(v), _CELL_MAX)


def _table(df):
    rows, cols = df.shape
    part = df.iloc[:_TABLE_ROWS, :_TABLE_COLS]
    return {
        "kind": "table",
        "text": _cut(repr(df)),
        "columns": [_fmt(c) for c in part.columns],
        "index": [_fmt(i) for i in part.index],
        "rows": [[_fmt(v) for v in r] for r in part.itertuples(index=False, name=None)],
        "shape": [rows, cols],
    }


def display(*objs, **kwargs):
    """Show values like Jupyter's display(): a DataFrame as a table, a
    figure as a PNG, anything else by its repr."""
    for obj in objs:
        _show(obj)


def _show(obj, result=False):
    """Hand obj over as a shown value; result marks the value of a last
    expression (a notebook's Out[n], an execute_result)."""
    pd = sys.modules.get("pandas")
    mpl_figure = sys.modules.get("matplotlib.figure")
    try:
        if pd is not None and isinstance(obj, pd.DataFrame):
            item = _table(obj)
            item["result"] = result
            _write_display(item)
            return
        if mpl_figure is not None and isinstance(obj, mpl_figure.Figure):
            global _count
            _count += 1
            name = "plot-%03d.png" % _count
            obj.savefig(os.path.join(_plots, name), format="png", dpi=100)
            _write_display({"kind": "image", "file": name, "result": result})
            return
        _write_display({"kind": "text", "text": _cut(repr(obj)), "result": result})
    except Exception as e:  # a broken repr must not hide the rest
        _write_display({"kind": "text", "text": "<%s: repr failed: %s>" % (type(obj).__name__, e)})


def _displayhook(value):
    if value is None:
        return
    builtins._ = value
    _show(value, result=True)


def run_cell(source, filename, globs):
    """Run source like a notebook cell (IPython's run_ast_nodes with
    interactivity='last_expr'): every statement in order, and the value of
    a last bare expression shown. Errors propagate to the caller."""
    # _ast is the compiler's own module (the ast module's classes are its
    # classes); ast.py itself would import enum and contextlib at each run.
    tree = compile(source, filename, "exec", _ast.PyCF_ONLY_AST, dont_inherit=True)
    last = None
    if tree.body and isinstance(tree.body[-1], _ast.Expr):
        last = _ast.Expression(tree.body.pop().value)
    if tree.body:
        exec(compile(tree, filename, "exec", dont_inherit=True), globs)
    if last is not None:
        value = eval(compile(last, filename, "eval", dont_inherit=True), globs)
        # A figure returned by a plotting call (plt.plot(...)[0], ax.hist)
        # is shown when the figures are saved; show other values.
        _displayhook(value)


def print_error():
    import traceback

    etype, value, tb = sys.exc_info()
    # The cell's own frames only: drop run_cell's and the caller's.
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    traceback.print_exception(etype, value, tb)


def setup():
    _site()
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")  # the code, never the runner, is what the OOM killer takes
    except OSError:
        pass
    sys.meta_path.insert(0, _PyplotHook())
    builtins.display = display


def main():
    setup()
    script = sys.argv[1]
    with open(script, "rb") as f:
        source = f.read()
    sys.argv = [script]
    sys.path[0] = os.getcwd()
    globs = {"__name__": "__main__", "__file__": script, "__builtins__": builtins}
    status = 0
    try:
        run_cell(source, script, globs)
    except SystemExit as e:
        status = e.code
    except BaseException:
        print_error()
        status = 1
    finally:
        _finish()
    sys.exit(status)


if __name__ == "__main__":
    main()
