"""A thread-safe LRU cache bounded in bytes, for the RDP accountant's per-mechanism curves and
per-grid conversion parts (:mod:`dpproofs.accountant.rdp`)."""

import collections
import threading

__all__ = ["BoundedCache"]


class BoundedCache:
    """A thread-safe LRU mapping whose values are numpy arrays (or tuples of them), bounded by the
    bytes of its values and of the ``bytes`` parts of its keys plus 200 B per entry (``max_bytes``)
    and by ``max_entries``; the least recently used entries are dropped first."""

    def __init__(self, max_bytes, max_entries):
        self.max_bytes, self.max_entries = max_bytes, max_entries
        self._data = collections.OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @staticmethod
    def _size(value):
        parts = value if isinstance(value, tuple) else (value,)
        return sum(part.nbytes for part in parts) + 200  # + the entry's own overhead (measured ~200 B)

    def get(self, key):
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    @staticmethod
    def _key_size(key):
        parts = key if isinstance(key, tuple) else (key,)
        return sum(len(part) for part in parts if isinstance(part, bytes))

    def put(self, key, value):
        size = self._size(value) + self._key_size(key)
        if size > self.max_bytes:
            return value
        with self._lock:
            if key not in self._data:
                self._data[key] = value
                self._bytes += size
                while self._bytes > self.max_bytes or len(self._data) > self.max_entries:
                    dropped_key, dropped = self._data.popitem(last=False)
                    self._bytes -= self._size(dropped) + self._key_size(dropped_key)
        return value

    def clear(self):
        with self._lock:
            self._data.clear()
            self._bytes = 0

    @property
    def nbytes(self):
        """Bytes counted against ``max_bytes`` (arrays, key bytes, 200 B per entry)."""
        return self._bytes
