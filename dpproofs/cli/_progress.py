"""A progress line on stderr for command steps that can take more than a few seconds.

``with slow_notice("computing the PLD bracket"):`` prints nothing when the step ends within
:data:`FIRST_NOTICE_SECONDS`; otherwise one line then, and one every :data:`NOTICE_EVERY_SECONDS`,
naming the step and the seconds spent (stdout, and so ``--json``, is never touched).
"""

import contextlib
import sys
import threading
import time

__all__ = ["slow_notice", "FIRST_NOTICE_SECONDS", "NOTICE_EVERY_SECONDS"]

#: A step that ends sooner prints nothing (the quick commands stay silent).
FIRST_NOTICE_SECONDS = 3.0
#: Interval between further lines while the step runs.
NOTICE_EVERY_SECONDS = 10.0


@contextlib.contextmanager
def slow_notice(label, stream=None):
    """Print ``label: still working (N s)`` to ``stream`` (stderr) while the block runs long."""
    stream = sys.stderr if stream is None else stream
    started = time.monotonic()
    done = threading.Event()

    def notify():
        wait = FIRST_NOTICE_SECONDS
        while not done.wait(wait):
            stream.write(f"{label}: still working ({time.monotonic() - started:.0f} s)\n")
            stream.flush()
            wait = NOTICE_EVERY_SECONDS

    thread = threading.Thread(target=notify, name="dpproofs-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
