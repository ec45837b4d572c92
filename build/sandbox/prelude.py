"""rehome sandbox prelude: runs the user's script like ChatGPT's Code
Interpreter would.

    python3 -B /opt/rehome/prelude.py SCRIPT

- the working directory is /mnt/data, where the input file is and where
  files written come back as outputs;
- matplotlib uses the non-interactive Agg backend; plt.show() saves every
  open figure as a PNG for the host to show inline, and figures still open
  when the script ends (or fails) are saved too, like a notebook's inline
  output;
- a traceback shows the script's frames only.

matplotlib is hooked only when the script imports it, so `print(1)` pays
nothing for it.
"""

import builtins
import importlib.abc
import os
import sys
import traceback

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


class _PyplotHook(importlib.abc.MetaPathFinder):
    """Patch matplotlib.pyplot right after its first import."""

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


def main():
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")  # the code, never the runner, is what the OOM killer takes
    except OSError:
        pass
    script = sys.argv[1]
    with open(script, "rb") as f:
        source = f.read()
    sys.argv = [script]
    sys.path[0] = os.getcwd()
    sys.meta_path.insert(0, _PyplotHook())
    globs = {"__name__": "__main__", "__file__": script, "__builtins__": builtins}
    status = 0
    try:
        exec(compile(source, script, "exec", dont_inherit=True), globs)
    except SystemExit as e:
        status = e.code
    except BaseException:
        etype, value, tb = sys.exc_info()
        traceback.print_exception(etype, value, tb.tb_next)
        status = 1
    finally:
        _finish()
    sys.exit(status)


main()
