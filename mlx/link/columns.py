"""Reply threading on Arrow and numpy arrays: the rules of ``mlx.link.threads``, columnar.

Every Message-ID and every id in ``thread_refs`` is dictionary-encoded into one
integer space, so the pass holds integer arrays instead of a Python object per
message.  Nodes are the rows (``0..n-1``) and the ghosts (``n + code`` for an id no
stored message has).  The parent of a row is the node of its last ``thread_refs`` id
(the earliest message with that id, by date then uid); a ghost's parent comes from
the first References chain, in that order, that names the id before it.  Roots and
depths come from pointer doubling; the rare reference loops are cut in Python at
their earliest message, as ``thread`` does.  ``tests/test_link_columns.py`` checks
that both give the same tables.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mlx.link.threads import GHOST, NO_DATE
from mlx.parts import hashes

NONE = -1
UNKNOWN = np.iinfo(np.int64).max  # the date of a message without one


@dataclass
class Threading:
    """Per row (input order): parent row (-1: none or a ghost), root node, depth; and the
    ids, so thread ids and root ids can be spelled out."""

    n: int  # rows; the integer arrays are int32 below 2**31 nodes
    parent_code: np.ndarray  # the id code of each row's parent (its last ref), -1: none
    mid_code: np.ndarray  # the id code of each row's own Message-ID, -1: none
    parent_row: np.ndarray  # -1 where the parent is a ghost or there is none
    root: np.ndarray  # a node: a row, or n + the code of a ghost id
    depth: np.ndarray
    ids: pa.Array  # the dictionary of every id: ghost node g names ids[g - n]
    ghost_roots: np.ndarray  # the root node of every ghost in the graph
    dates: np.ndarray  # microseconds, UNKNOWN when a message has no date
    rank: np.ndarray  # each row's place in the order by (date, unknown last; uid)
    # each row's nearest ancestor in the archive: the row of its last ref that a row
    # carries (not itself), -1 for none; past a ghost parent it reaches further up
    present_parent: np.ndarray

    def thread_ids(self, uid: pa.Array, rows: slice = slice(None)) -> pa.Array:
        """A thread is named by its root: the root's uid, or "ghost:<id>" (of ``rows``)."""
        return self.node_names(uid, self.root[rows])

    def node_names(self, uid: pa.Array, nodes: np.ndarray) -> pa.Array:
        """The uid of a row node, "ghost:<id>" of a ghost node."""
        is_row = nodes < self.n
        names = uid.take(pa.array(np.where(is_row, nodes, 0)))
        if is_row.all():
            return names
        ghost = pc.binary_join_element_wise(
            GHOST, self.ids.take(pa.array(np.where(is_row, 0, nodes - self.n))), "")
        return pc.if_else(pa.array(is_row), names, ghost)

    def parent_ids(self, rows: slice = slice(None)) -> pa.Array:
        """The parent's Message-ID (a ghost's included) of ``rows``."""
        return take_codes(self.ids, self.parent_code[rows])

    def parent_uids(self, uid: pa.Array, rows: slice = slice(None)) -> pa.Array:
        return take_codes(uid, self.parent_row[rows])


def release() -> None:
    """Give memory freed back to the system between stages: pyarrow's pool and glibc's
    malloc keep it otherwise, and the next stage's peak comes on top (on the 1.09M-message
    store the pass peaked 100 MiB higher without)."""
    pa.default_memory_pool().release_unused()
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (AttributeError, OSError):  # not glibc
        pass


def stamps(dates: np.ndarray, to: pa.DataType) -> pa.Array:
    """Microseconds (UNKNOWN: null) as Arrow timestamps of type ``to``."""
    return pa.array(dates, pa.int64(), mask=dates == UNKNOWN).cast(to)


def take_codes(values: pa.Array, codes: np.ndarray) -> pa.Array:
    """``values[codes]``, null where a code is -1."""
    return values.take(pa.array(codes, pa.int64(), mask=codes < 0))


def _chunks(values: pa.Array | pa.ChunkedArray) -> list[pa.Array]:
    return values.chunks if isinstance(values, pa.ChunkedArray) else [values]


def as_numpy(values: pa.Array | pa.ChunkedArray, null: Any = None,
          dtype: Any = np.int64) -> np.ndarray:
    """An Arrow column as a numpy array, nulls filled with ``null``."""
    if null is not None:
        values = pc.fill_null(values, null)
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    return np.asarray(values.to_numpy(zero_copy_only=False), dtype=dtype)


def encode(values: pa.Array | pa.ChunkedArray, null: int = NONE
           ) -> tuple[pa.Array, np.ndarray]:
    """(distinct values, each value's code into them); a null's code is ``null``."""
    enc = values.dictionary_encode()
    chunks = _chunks(enc)
    if not chunks:
        return pa.array([], values.type), np.zeros(0, dtype=np.int64)
    return chunks[0].dictionary, np.concatenate([as_numpy(c.indices, null) for c in chunks])


@dataclass
class IdCodes:
    """Every Message-ID and ``thread_refs`` id as a code into one dictionary."""

    ids: pa.Array
    mid_code: np.ndarray  # per row: its own Message-ID, -1 when it has none
    ref_code: np.ndarray  # the refs of every row, one after another
    length: np.ndarray  # per row: how many refs

    def hashed(self) -> np.ndarray:
        """A 64-bit hash of each id (``mlx.parts.hashes``); the ids themselves when they
        are such hashes already (a pass that never holds the strings)."""
        if pa.types.is_integer(self.ids.type):
            return as_numpy(self.ids)
        return hashes(self.ids)


def encode_ids(message_id: pa.Array | pa.ChunkedArray,
               refs: pa.ListArray | pa.ChunkedArray) -> IdCodes:
    """Codes of the ids (the caller can drop the strings afterwards)."""
    n = len(message_id)
    flat = pc.list_flatten(refs)
    ids, codes = encode(pa.chunked_array([c.cast(pa.string()) for c in
                                          (*_chunks(message_id), *_chunks(flat))], pa.string()))
    codes = codes.astype(_index_type(n + len(ids)))
    return IdCodes(ids, codes[:n], codes[n:],
                   as_numpy(pc.list_value_length(refs), 0, np.int64))


def _index_type(size: int) -> Any:
    return np.int32 if size < 2**31 - 1 else np.int64


def thread_columns(uid: pa.Array, message_id: pa.Array, date_us: pa.Array,
                   refs: pa.ListArray) -> Threading:
    """Thread ``n`` messages given as Arrow columns, chunked or not (``date_us``:
    microseconds, null when unknown; ``refs``: each message's ``thread_refs``, parent
    last)."""
    return thread_codes(uid, date_us, encode_ids(message_id, refs))


def thread_codes(uid: pa.Array, date_us: pa.Array, codes: IdCodes) -> Threading:
    """``thread_columns`` on ids already coded."""
    n = len(uid)
    ids, mid_code, ref_code, length = codes.ids, codes.mid_code, codes.ref_code, codes.length
    idx = _index_type(n + len(ids))
    dates = as_numpy(date_us.cast(pa.int64()), UNKNOWN)
    rank, first = _ranked(uid, dates, mid_code, len(ids), idx)

    def node(code: np.ndarray) -> np.ndarray:
        row = first[code]
        return np.where(row >= 0, row, n + code).astype(idx)

    parent = np.full(n + len(ids), NONE, dtype=idx)
    offsets = np.concatenate(([0], np.cumsum(length)))
    last = np.flatnonzero(length > 0)
    parent_code = np.full(n, NONE, dtype=idx)
    parent_code[last] = ref_code[offsets[last + 1] - 1]
    up = node(parent_code[last])
    parent[last] = np.where(up == last, n + parent_code[last], up)  # its own id: a ghost
    del up, last
    present = _present_parents(ref_code, offsets, length, first, n)
    _ghost_parents(parent, ref_code, offsets, length, rank, first, node, n)
    del offsets
    _cut_cycles(parent, n, dates, uid, ids)
    root, depth = _roots(parent)
    parent_row = parent[:n].copy()
    parent_row[parent_row >= n] = NONE
    in_graph = np.zeros(len(parent), dtype=bool)
    in_graph[n:] = parent[n:] != NONE
    in_graph[parent[parent >= n]] = True
    ghost_nodes = np.flatnonzero(in_graph[n:]) + n
    del in_graph, parent
    return Threading(n, parent_code, mid_code, parent_row, root[:n].copy(), depth[:n].copy(),
                     ids, root[ghost_nodes], dates, rank, present)


def _ranked(uid: pa.Array | pa.ChunkedArray, dates: np.ndarray, mid_code: np.ndarray,
            n_ids: int, idx: Any) -> tuple[np.ndarray, np.ndarray]:
    """(each row's place in the processing order: by date, unknown last, then uid; the
    earliest row carrying each id code, -1 for none)."""
    n = len(dates)
    order = np.lexsort((as_numpy(pc.rank(uid, sort_keys="ascending", tiebreaker="first"), 0,
                              idx), dates)).astype(idx)
    rank = np.empty(n, dtype=idx)
    rank[order] = np.arange(n, dtype=idx)
    first = np.full(n_ids, NONE, dtype=idx)
    rows_by_rank = order[mid_code[order] >= 0]
    del order
    first[mid_code[rows_by_rank[::-1]]] = rows_by_rank[::-1]  # the earliest is set last
    return rank, first


def present_parents(uid: pa.Array | pa.ChunkedArray, dates: np.ndarray,
                    codes: IdCodes) -> np.ndarray:
    """``Threading.present_parent`` of the rows alone, without threading them."""
    n = len(dates)
    idx = _index_type(n + len(codes.ids))
    first = _ranked(uid, dates, codes.mid_code, len(codes.ids), idx)[1]
    offsets = np.concatenate(([0], np.cumsum(codes.length)))
    return _present_parents(codes.ref_code, offsets, codes.length, first, n)


def _present_parents(ref_code: np.ndarray, offsets: np.ndarray, length: np.ndarray,
                     first: np.ndarray, n: int) -> np.ndarray:
    """The row of each row's last ref that some row carries (the earliest such row),
    not the row itself; -1 where none does."""
    present = np.full(n, NONE, dtype=first.dtype)
    rows = np.flatnonzero(length > 0)
    if not len(rows):
        return present
    at = first[ref_code]
    own = np.repeat(np.arange(n, dtype=first.dtype), length)
    pos = np.where((at >= 0) & (at != own), np.arange(len(ref_code)), -1)
    del own
    last = np.maximum.reduceat(pos, offsets[rows])
    present[rows] = np.where(last >= 0, at[np.maximum(last, 0)], NONE)
    return present


def nearest_marked(parent: np.ndarray, marked: np.ndarray) -> np.ndarray:
    """The nearest strict ancestor of every row that is ``marked`` (-1 for none, and on a
    loop of unmarked rows): pointer jumping over unmarked ancestors, doubling the stride
    each round; a chain longer than the rows can only be a loop."""
    jump = parent.copy()
    for _ in range(max(1, int(math.ceil(math.log2(len(parent) + 1)))) + 2):
        live = np.flatnonzero(jump >= 0)
        live = live[~marked[jump[live]]]
        if not len(live):
            return jump
        jump[live] = jump[jump[live]]
    live = np.flatnonzero(jump >= 0)
    jump[live[~marked[jump[live]]]] = NONE
    return jump


def _ghost_parents(parent: np.ndarray, ref_code: np.ndarray, offsets: np.ndarray,
                   length: np.ndarray, rank: np.ndarray, first: np.ndarray, node: Any,
                   n: int) -> None:
    """A ghost's parent is the id before it in the first chain (rows by date and uid,
    chains left to right) that names it; an id equal to its predecessor is skipped."""
    # every ref but a chain's first is the "b" of a pair (a, b); only ghost b's matter
    candidate = first[ref_code] < 0
    candidate[offsets[:-1][length > 0]] = False
    b_at = np.flatnonzero(candidate)
    del candidate
    a = ref_code[b_at - 1]
    b = ref_code[b_at]
    keep = a != b
    a, b, b_at = a[keep], b[keep], b_at[keep]
    if not len(b):
        return
    row_of = np.searchsorted(offsets, b_at, side="right") - 1
    # the first pair per ghost, in processing order
    order = np.lexsort((b_at, rank[row_of], b))
    b_sorted = b[order]
    firsts = order[np.concatenate(([True], b_sorted[1:] != b_sorted[:-1]))]
    parent[n + b[firsts]] = node(a[firsts])


def _roots(parent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Root node and depth of every node, by pointer doubling (log depth rounds)."""
    up = np.where(parent >= 0, parent, np.arange(len(parent), dtype=parent.dtype))
    dist = (parent >= 0).astype(parent.dtype)
    while True:
        nxt = up[up]
        if np.array_equal(nxt, up):
            return up, dist
        dist = dist + dist[up]
        up = nxt


def _cut_cycles(parent: np.ndarray, n: int, dates: np.ndarray, uid: pa.Array,
                ids: pa.Array) -> None:
    """Break every parent cycle at its earliest message (ghosts last), as ``thread``."""
    up = np.where(parent >= 0, parent, np.arange(len(parent), dtype=parent.dtype))
    for _ in range(max(1, int(math.ceil(math.log2(len(parent) + 1))) + 1)):
        up = up[up]
    stuck = np.flatnonzero(parent[up] >= 0)  # a node doubling leaves on a non-root: a loop
    if not len(stuck):
        return
    on_cycle: set[int] = set()
    for start in stuck.tolist():
        seen: dict[int, int] = {}
        cur = start
        while cur not in seen and parent[cur] >= 0:
            seen[cur] = len(seen)
            cur = int(parent[cur])
        if cur in seen:
            cycle = [k for k, v in seen.items() if v >= seen[cur]]
            if not on_cycle.intersection(cycle):
                on_cycle.update(cycle)

                def key(x: int) -> tuple[float, str]:
                    if x < n:
                        d = dates[x]
                        return (NO_DATE if d == UNKNOWN else d / 1e6,
                                str(uid[x].as_py()))
                    return NO_DATE, GHOST + str(ids[x - n].as_py())
                parent[min(cycle, key=key)] = NONE


def ranges(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The positions ``lo[k]:hi[k]`` of every k, one range after another (none where
    ``hi[k] <= lo[k]``)."""
    size = np.maximum(hi - lo, 0)
    if not size.sum():
        return np.zeros(0, dtype=np.int64)
    starts = np.repeat(lo - np.concatenate(([0], np.cumsum(size)[:-1])), size)
    return starts + np.arange(size.sum())
