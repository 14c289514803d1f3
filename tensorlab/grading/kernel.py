"""A fresh, resource-limited IPython kernel driven through nbclient, one cell at a time.

The kernel runs ``sys.executable`` (the grader's own Python, so it sees the same tensorlab) via a
private kernelspec in a temporary directory, with an address-space cap, a private working
directory, a private IPython directory (no profile scripts), single-threaded BLAS and
``TENSORLAB_GRADING=1``. With ``sandbox=True`` it runs inside bubblewrap (``sandbox``): the
working directory is then the sandbox's private scratch ``/tmp``. ``run`` never raises for what
the notebook does: it reports ``ok``, ``error``, ``timeout`` or ``dead``.

Batch grading launches no kernel: it uses a ``Kernel`` only for its sandbox and cgroup, and
runs each submission in answer processes (``spawn_answers``; see ``answers``). A kernel runs a
learner's notebook as Jupyter does (tests, ``check``'s own run-throughs).
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import tensorlab

KERNEL_NAME = "tensorlab-grader"
# Every output path (streams, display data of any MIME type, errors, comms) is capped in the
# worker before anything is stored: per cell and per notebook (one Kernel grades one notebook).
MAX_OUTPUT_CHARS = 2_000_000  # per cell, outputs other than the grader's answer
MAX_OUTPUTS = 500  # per cell
MAX_NOTEBOOK_OUTPUT_CHARS = 20_000_000  # per notebook, outputs other than answers
MAX_ANSWER_CHARS = 64_000_000  # per cell, outputs carrying the answer MIME type
MAX_ANSWER_OUTPUTS = 4  # per cell
MAX_NOTEBOOK_ANSWER_CHARS = 512_000_000  # per notebook
MAX_ERROR_CHARS = 4_000  # an error's message and traceback are clipped to this
MAX_MESSAGE_BYTES = 128 * 2**20  # one message from the kernel (larger: the kernel is cut off)


@dataclass
class RunResult:
    """What happened when one cell ran."""

    status: str  # ok | error | timeout | dead
    outputs: list = field(default_factory=list)
    ename: str | None = None
    evalue: str | None = None


_PASS_ENV = (
    "PATH",
    "HOME",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "TMPDIR",
    "TEMP",
    "TMP",
    "LD_LIBRARY_PATH",
    "SYSTEMROOT",
    "PYTHONPATH",
)


def _kernel_env(workdir: Path, ipython_dir: Path, grading: bool) -> dict:
    """A small environment for the kernel: no credentials or settings of the grader leak in."""
    env = {k: os.environ[k] for k in _PASS_ENV if k in os.environ}
    pkg_root = str(Path(tensorlab.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(
        [pkg_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    if grading:
        env["TENSORLAB_GRADING"] = "1"
    env.update(
        IPYTHONDIR=str(ipython_dir),
        MPLCONFIGDIR=str(ipython_dir / "matplotlib"),
        MPLBACKEND="Agg",
        OPENBLAS_NUM_THREADS="1",
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONHASHSEED="0",
        JPY_SESSION_NAME=str(workdir / "submission.ipynb"),
    )
    return env


def _size(obj, limit: int) -> int:
    """The characters (and bytes) in a decoded message, counted iteratively up to ``limit``."""
    total, todo = 0, [obj]
    while todo and total <= limit:
        v = todo.pop()
        if isinstance(v, (str, bytes, bytearray, memoryview)):
            total += len(v)
        elif isinstance(v, dict):
            total += len(v)
            todo.extend(v.keys())
            todo.extend(v.values())
        elif isinstance(v, (list, tuple)):
            total += len(v)
            todo.extend(v)
        else:
            total += 8
    return total


def _clip_error(content: dict) -> dict:
    """An error's content with its message and traceback clipped (ename kept: it is read)."""
    out = dict(content)
    out["ename"] = str(out.get("ename", ""))[:200]
    out["evalue"] = str(out.get("evalue", ""))[:MAX_ERROR_CHARS]
    tb = out.get("traceback")
    lines, left = [], MAX_ERROR_CHARS
    for line in tb if isinstance(tb, list) else []:
        line = str(line)[:left]
        lines.append(line)
        left -= len(line)
        if left <= 0 or len(lines) >= 50:
            break
    out["traceback"] = lines
    return out


def _harness_mime() -> str:
    from ._harness import MIME

    return MIME


def _client_class():
    """nbclient's NotebookClient whose every iopub message is sized and capped before it is
    stored: outputs per cell (``MAX_OUTPUTS``, ``MAX_OUTPUT_CHARS``) and per notebook
    (``MAX_NOTEBOOK_OUTPUT_CHARS``); the answer MIME type under its own caps; errors clipped;
    comm messages (widgets) and display updates never stored."""
    from nbclient import NotebookClient

    from ._harness import MIME

    class CappedClient(NotebookClient):
        cell_chars = cell_outputs = cell_answers = cell_answer_chars = 0
        notebook: dict  # shared by every kernel of one notebook: {"chars": n, "answer_chars": n}

        def new_cell(self) -> None:
            self.cell_chars = self.cell_outputs = self.cell_answers = self.cell_answer_chars = 0

        def process_message(self, msg, cell, cell_index):
            msg_type = msg.get("msg_type", "")
            content = msg.get("content")
            if msg_type == "status" or not isinstance(content, dict):
                return super().process_message(msg, cell, cell_index)
            if msg_type.startswith("comm") or msg_type in ("update_display_data", "clear_output"):
                return None  # widgets and display updates: nothing the grader reads
            if msg_type == "execute_input":
                return None
            transient = content.get("transient")
            if isinstance(transient, dict):
                transient.pop("display_id", None)
            if msg_type == "error":
                msg["content"] = _clip_error(content)
                return super().process_message(msg, cell, cell_index)
            data = content.get("data")
            if isinstance(data, dict) and MIME in data:
                if len(data) != 1:  # an answer travels alone
                    return None
                size = _size(content, MAX_ANSWER_CHARS)
                self.cell_answers += 1
                self.cell_answer_chars += size
                self.notebook["answer_chars"] += size
                if (
                    self.cell_answers > MAX_ANSWER_OUTPUTS
                    or self.cell_answer_chars > MAX_ANSWER_CHARS
                    or self.notebook["answer_chars"] > MAX_NOTEBOOK_ANSWER_CHARS
                ):
                    return None
                return super().process_message(msg, cell, cell_index)
            size = _size(content, MAX_OUTPUT_CHARS)
            self.cell_outputs += 1
            self.cell_chars += size
            self.notebook["chars"] += size
            if (
                self.cell_outputs > MAX_OUTPUTS
                or self.cell_chars > MAX_OUTPUT_CHARS
                or self.notebook["chars"] > MAX_NOTEBOOK_OUTPUT_CHARS
            ):
                return None
            return super().process_message(msg, cell, cell_index)

    return CappedClient


class WorkDir:
    """A temporary folder removed by ``sandbox.remove_tree`` (``TemporaryDirectory`` would
    recurse into whatever depth the notebook made there). Its name carries the owner's pid, so
    one left by a process killed before it could clean up (a Dask worker's warm spare, say) is
    removed later by ``sandbox.sweep``."""

    def __init__(self, prefix: str = "tensorlab-grade-"):
        self.name = tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-")

    def cleanup(self) -> None:
        from .sandbox import remove_tree

        remove_tree(self.name)

    def __enter__(self) -> str:
        return self.name

    def __exit__(self, *exc) -> None:
        self.cleanup()


class Kernel:
    """One kernel in ``workdir`` with at most ``memory`` bytes of address space (0: no cap).

    ``grading=False`` leaves ``TENSORLAB_GRADING`` unset (inline checks then run as for a
    learner).
    """

    def __init__(
        self,
        workdir: str | os.PathLike,
        memory: int,
        startup_timeout: float = 60,
        *,
        grading: bool = True,
        sandbox: bool = False,
        cpu: int = 0,
    ):
        self.workdir = Path(workdir)
        self.memory = int(memory)
        self.grading = grading
        self.cpu = int(cpu)
        self.startup_timeout = startup_timeout
        # the owner's pid in the name: a sandbox left by a killed worker can be swept later
        self._private = Path(tempfile.mkdtemp(prefix=f"tensorlab-kernel-{os.getpid()}-"))
        self._box = None
        self._cgroup = None
        from .sandbox import sweep

        sweep(Path(tempfile.gettempdir()))
        if sandbox:
            from . import cgroups
            from .sandbox import NPROC, Sandbox

            self._box = Sandbox.create(self._private)
            cgroups.sweep()
            # one budget for the kernel and everything it starts (None: per-process limits only)
            self._cgroup = cgroups.Cgroup.create(self.memory, NPROC + cgroups.PIDS_SLACK)
        self._client = None
        self._connected = False
        self._launches = 0
        self.restarts = -1
        self.notebook_outputs = {"chars": 0, "answer_chars": 0}  # see _client_class
        self._context = None

    # ------------------------------------------------------------------ lifecycle
    def _kernelspec_manager(self):
        from jupyter_client.kernelspec import KernelSpecManager

        spec_dir = self._private / "kernels" / KERNEL_NAME
        spec_dir.mkdir(parents=True, exist_ok=True)
        argv = [sys.executable, "-m", "tensorlab.grading._launch", str(self.memory)]
        if self.cpu > 0:
            argv += ["--cpu", str(self.cpu)]
        if self._box is not None:
            from .sandbox import NPROC

            argv = self._box.argv(argv + ["--nproc", str(NPROC), *self._box.launch_args()])
        if self._cgroup is not None:
            argv = self._cgroup.wrap(argv)
        spec = {
            "argv": argv + ["-f", "{connection_file}"],
            "display_name": "tensorlab grader",
            "language": "python",
        }
        (spec_dir / "kernel.json").write_text(json.dumps(spec))
        return KernelSpecManager(kernel_dirs=[str(self._private / "kernels")])

    def start(self) -> None:
        """Start a new kernel and wait until it answers (the previous one is shut down first)."""
        self.launch()
        self.connect()

    def connect(self) -> None:
        """Wait until the launched kernel answers; one fresh launch is tried if it never does."""
        try:
            self._connect()
        except Exception:  # noqa: BLE001 - e.g. "Kernel died before replying to kernel_info"
            self.launch()
            self._connect()

    def launch(self) -> None:
        """Spawn a new kernel process without waiting for it (it initialises in the background)."""
        import nbformat
        from jupyter_client import AsyncKernelManager

        self.close_kernel()
        if self._box is not None:
            self._box.unlock()
        ipython_dir = self._private / "ipython"
        ipython_dir.mkdir(exist_ok=True)
        conn_dir = self._private if self._box is None else self._box.ipc_dir
        km = AsyncKernelManager(
            kernel_name=KERNEL_NAME,
            kernel_spec_manager=self._kernelspec_manager(),
            connection_file=str(conn_dir / f"kernel-{self._launches}.json"),
            transport="ipc",  # private unix sockets: no TCP port races between parallel kernels
        )
        # every socket of the client refuses a message over MAX_MESSAGE_BYTES before it is
        # read into memory (the kernel is cut off; the cell then times out)
        import zmq
        import zmq.asyncio

        self._context = zmq.asyncio.Context()
        self._context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
        km.client = functools.partial(type(km).client, km, context=self._context)
        self._launches += 1
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("")])
        client = _client_class()(
            nb,
            km=km,
            timeout=60,
            startup_timeout=int(self.startup_timeout),
            allow_errors=True,
            interrupt_on_timeout=False,
            record_timing=False,
            iopub_timeout=10,
            store_widget_state=False,
        )
        client.notebook = self.notebook_outputs
        env = _kernel_env(self.workdir, ipython_dir, self.grading)
        if self._box is not None:
            from .sandbox import env as sandbox_env

            env = sandbox_env(env)
        client.start_new_kernel(
            cwd=str(self.workdir),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self._client = client
        self._connected = False

    def _connect(self) -> None:
        if self._client is None:
            self.launch()
        if self._connected:
            return
        try:
            self._client.start_new_kernel_client()
        except BaseException:
            self.close_kernel()
            raise
        self._connected = True
        self.restarts += 1
        if self._box is not None:
            self._box.lock()  # sockets bound: the kernel may not write in the IPC folder again

    def spawn_answers(self) -> subprocess.Popen:
        """Start the answer process (``_answers``) under this kernel's limits and sandbox, in a
        sandbox of its own: stdin and stdout are pipes to the caller (see ``answers``)."""
        argv = [sys.executable, "-m", "tensorlab.grading._launch", str(self.memory)]
        if self.cpu > 0:
            argv += ["--cpu", str(self.cpu)]
        env = _kernel_env(self.workdir, self._private / "ipython", self.grading)
        if self._box is not None:
            from .sandbox import NPROC
            from .sandbox import env as sandbox_env

            argv += ["--nproc", str(NPROC), *self._box.launch_args(), "--answers"]
            argv = self._box.argv(argv)
            env = sandbox_env(env)
        else:
            argv.append("--answers")
        if self._cgroup is not None:
            argv = self._cgroup.wrap(argv)
        return subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=str(self.workdir),
            env=env,
            start_new_session=True,
        )

    def close_kernel(self) -> None:
        """Shut the kernel down now (kill it if it does not answer)."""
        client, self._client = self._client, None
        if client is None:
            return
        proc = getattr(getattr(client.km, "provisioner", None), "process", None)
        try:
            client.shutdown_kernel = "immediate"
            client._cleanup_kernel()
        except Exception:  # noqa: BLE001 - a dead or stuck kernel must still be cleaned up
            pass
        try:
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait(timeout=5)
        except Exception:  # noqa: BLE001
            pass
        if proc is not None:
            # the kernel leads its own process group: end what the notebook started in it too
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
        context, self._context = self._context, None
        if context is not None:
            with contextlib.suppress(Exception):
                context.destroy(linger=0)

    def close(self) -> None:
        """Shut the kernel down and remove the private directory (the IPC tmpfs unmounted, the
        rest removed without recursion, however deep a notebook made it)."""
        from .sandbox import remove_tree

        self.close_kernel()
        if self._cgroup is not None:
            self._cgroup.remove()
            self._cgroup = None
        if self._box is not None:
            self._box.cleanup()
        remove_tree(self._private)

    def __enter__(self) -> Kernel:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ running code
    def run(self, source: str, timeout: float) -> RunResult:
        """Run ``source`` as one cell with a time limit (seconds)."""
        import nbformat
        from nbclient.exceptions import CellTimeoutError, DeadKernelError

        client = self._client
        if client is None or not self._connected:
            return RunResult("dead")
        cell = nbformat.v4.new_code_cell(source)
        client.nb.cells = [cell]
        client.new_cell()
        client.timeout = max(1, int(math.ceil(timeout)))
        try:
            cell = client.execute_cell(cell, 0)
        except CellTimeoutError:
            return RunResult("timeout")
        except DeadKernelError:
            return RunResult("dead")
        except Exception as e:  # noqa: BLE001 - e.g. a broken channel: treat as a dead kernel
            return RunResult("dead", ename=type(e).__name__, evalue=str(e))
        errors = [o for o in cell.outputs if o.get("output_type") == "error"]
        if errors:
            return RunResult("error", cell.outputs, errors[0].get("ename"), errors[0].get("evalue"))
        return RunResult("ok", cell.outputs)
