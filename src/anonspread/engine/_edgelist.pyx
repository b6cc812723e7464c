"""Edge-list tokenizer and CSR builder (compiled; see :mod:`anonspread.engine.edgelist`).

The tokenizer turns the bytes of an edge list into two int32 arrays of node ids (one
entry per edge line) and a table of distinct node names, without a Python object per
line or per token. It is fed buffers of bytes by the Python reader above it and stops at
every line the Python side must see (the header, a comment that may say "directed", an
error): the semantics (what a line, a blank, a comment, a token is) are those of
``str.strip``/``str.split`` on text decoded as UTF-8 with universal newlines.
"""

import numpy as np

cimport cython
cimport numpy as cnp
from cpython.ref cimport Py_INCREF
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset

cnp.import_array()

# events returned by Tokenizer.feed
EV_MORE = 0     # every complete line consumed: feed more bytes (or the file is done)
EV_HEADER = 1   # the header line [ev_start, ev_end) was consumed
EV_COMMENT = 2  # a comment line [ev_start, ev_end) that may say "directed" was consumed
EV_LINE = 3     # line ev_lineno [ev_start, ev_end) is not an edge line (not consumed)
EV_LONG = 4     # line ev_lineno is longer than max_line_chars (detected at ev_end)
EV_UTF8 = 5     # the byte at ev_start does not continue valid UTF-8
EV_LIMIT = 6    # line ev_lineno would be edge number max_edges + 1 (not consumed)
EV_BIGINT = 7   # a node id on line ev_lineno does not fit in int64 (read the names as text)

cdef extern from *:
    void __builtin_prefetch(const void*) noexcept nogil

cdef enum:
    _BATCH = 4096

cdef enum:
    D_AUTO = 0
    D_WS = 1
    D_COMMA = 2
    D_TAB = 3
    D_SEMI = 4

MODE_INT = 0    # names are ints (ASCII digits, optional '-'), kept as int64
MODE_TEXT = 1   # names are kept as their text
MODE_INTTEXT = 2  # names must be ints but are kept as text (an id beyond int64)

ctypedef struct IntSlot:
    int64_t key
    int64_t idp1     # node id + 1; 0: empty

ctypedef struct StrSlot:
    uint64_t h
    int64_t idp1
    uint64_t inl     # a name of at most 8 bytes, in place (compared without the arena)
    int64_t n        # its length in bytes


cdef class _Owner:
    """Owns a malloc'd block handed to numpy (freed with the last array that uses it)."""
    cdef void* ptr

    def __dealloc__(self):
        free(self.ptr)


cdef object _array_from(void* ptr, Py_ssize_t n, int typenum):
    """A numpy array over ``ptr`` (n items) that frees it when no longer used."""
    cdef cnp.npy_intp dims[1]
    dims[0] = n
    if ptr == NULL:
        return np.empty(0, dtype=cnp.PyArray_TypeObjectFromType(typenum))
    arr = cnp.PyArray_SimpleNewFromData(1, dims, typenum, ptr)
    owner = _Owner()
    owner.ptr = ptr
    Py_INCREF(owner)
    cnp.PyArray_SetBaseObject(arr, owner)
    return arr


cdef inline bint _is_ws(uint32_t cp) noexcept nogil:
    # str.isspace(): the code points str.split() and str.strip() treat as whitespace
    if cp < 0x80:
        return cp == 0x20 or (0x09 <= cp <= 0x0D) or (0x1C <= cp <= 0x1F)
    return (cp == 0x85 or cp == 0xA0 or cp == 0x1680 or (0x2000 <= cp <= 0x200A)
            or cp == 0x2028 or cp == 0x2029 or cp == 0x202F or cp == 0x205F or cp == 0x3000)


cdef inline Py_ssize_t _utf8_len(const uint8_t* s, Py_ssize_t p, Py_ssize_t stop) noexcept nogil:
    """Length of the valid UTF-8 sequence at s[p] (a byte >= 0x80); 0: incomplete at stop
    (valid so far); -1: invalid (as Python's strict decoder says)."""
    cdef uint8_t c = s[p], c1, c2, c3
    if c < 0xC2 or c > 0xF4:
        return -1
    if c < 0xE0:
        if p + 1 >= stop:
            return 0
        return 2 if (s[p + 1] & 0xC0) == 0x80 else -1
    if c < 0xF0:
        if p + 1 >= stop:
            return 0
        c1 = s[p + 1]
        if (c1 & 0xC0) != 0x80 or (c == 0xE0 and c1 < 0xA0) or (c == 0xED and c1 > 0x9F):
            return -1
        if p + 2 >= stop:
            return 0
        return 3 if (s[p + 2] & 0xC0) == 0x80 else -1
    if p + 1 >= stop:
        return 0
    c1 = s[p + 1]
    if (c1 & 0xC0) != 0x80 or (c == 0xF0 and c1 < 0x90) or (c == 0xF4 and c1 > 0x8F):
        return -1
    if p + 2 >= stop:
        return 0
    c2 = s[p + 2]
    if (c2 & 0xC0) != 0x80:
        return -1
    if p + 3 >= stop:
        return 0
    c3 = s[p + 3]
    return 4 if (c3 & 0xC0) == 0x80 else -1


cdef inline uint32_t _cp(const uint8_t* s, Py_ssize_t p, Py_ssize_t* nxt) noexcept nogil:
    """The code point at s[p] of validated UTF-8; nxt gets the position after it."""
    cdef uint8_t c = s[p]
    if c < 0x80:
        nxt[0] = p + 1
        return c
    if c < 0xE0:
        nxt[0] = p + 2
        return ((c & 0x1F) << 6) | (s[p + 1] & 0x3F)
    if c < 0xF0:
        nxt[0] = p + 3
        return ((c & 0x0F) << 12) | ((s[p + 1] & 0x3F) << 6) | (s[p + 2] & 0x3F)
    nxt[0] = p + 4
    return (((c & 0x07) << 18) | ((s[p + 1] & 0x3F) << 12) | ((s[p + 2] & 0x3F) << 6)
            | (s[p + 3] & 0x3F))


cdef inline Py_ssize_t _prev(const uint8_t* s, Py_ssize_t lo, Py_ssize_t p) noexcept nogil:
    """Start of the code point that ends just before p (validated UTF-8, p > lo)."""
    p -= 1
    while p > lo and (s[p] & 0xC0) == 0x80:
        p -= 1
    return p


cdef inline void _strip(const uint8_t* s, Py_ssize_t* lo, Py_ssize_t* hi) noexcept nogil:
    cdef Py_ssize_t a = lo[0], b = hi[0], nxt, q
    while a < b:
        if not _is_ws(_cp(s, a, &nxt)):
            break
        a = nxt
    while b > a:
        q = _prev(s, a, b)
        if not _is_ws(_cp(s, q, &nxt)):
            break
        b = q
    lo[0] = a
    hi[0] = b


cdef inline bint _alpha(uint8_t c) noexcept nogil:
    return (0x41 <= c <= 0x5A) or (0x61 <= c <= 0x7A)


cdef int _says_directed(const uint8_t* s, Py_ssize_t lo, Py_ssize_t hi, bint ascii) noexcept nogil:
    """Does the comment line match ``(?<![a-z])directed\\b`` (re.IGNORECASE)? 1 yes, 0 no,
    2: the line holds non-ASCII text near a candidate (the Python regex decides)."""
    cdef const char* word = b"directed"
    cdef Py_ssize_t p, k
    cdef uint8_t c
    cdef bint cand
    for p in range(lo, hi):
        if not ascii and s[p] == 0xC4 and p + 1 < hi and (s[p + 1] == 0xB0 or s[p + 1] == 0xB1):
            return 2  # dotted or dotless i: matches 'i' under IGNORECASE
        if p + 8 > hi:
            continue
        cand = True
        for k in range(8):
            c = s[p + k]
            if 0x41 <= c <= 0x5A:
                c += 0x20
            if c != <uint8_t>word[k]:
                cand = False
                break
        if not cand:
            continue
        if not ascii:
            return 2
        if p > lo and _alpha(s[p - 1]):
            continue
        if p + 8 < hi:
            c = s[p + 8]
            if _alpha(c) or (0x30 <= c <= 0x39) or c == 0x5F:
                continue
        return 1
    return 0


@cython.final
cdef class Tokenizer:
    """Edge lines -> int32 node ids, fed buffers of bytes (see the module docstring).

    Parameters
    ----------
    mode : int
        MODE_INT, MODE_TEXT or MODE_INTTEXT.
    delimiter : int
        0 auto, 1 whitespace, 2 comma, 3 tab, 4 semicolon.
    comments : sequence of int
        Code points that start a comment line.
    header : bool
        The first line that is neither blank nor a comment is the header.
    max_line_chars : int
        Longest line, in characters with its line end.
    max_edges : int
        Edge lines read before EV_LIMIT.
    """
    cdef public int64_t lineno, edges, first_edge_line, extra_max, lines_extra, max_edges
    cdef public int64_t ev_start, ev_end, ev_lineno
    cdef public int delimiter
    cdef public bint directed
    cdef int mode
    cdef bint header, header_done, pending_cr
    cdef int64_t max_line_chars
    cdef uint32_t comment_cps[64]
    cdef int n_comments
    # arcs
    cdef int32_t* a
    cdef int32_t* b
    cdef int64_t cap
    # nodes
    cdef readonly int64_t n_nodes
    cdef int64_t node_cap
    cdef int64_t* labels      # MODE_INT: the int of each node
    cdef int64_t* first_line  # the line of each node's first appearance
    cdef int64_t* offs        # MODE_TEXT/INTTEXT: node i's name is arena[offs[i]:offs[i + 1]]
    cdef uint8_t* arena
    cdef int64_t arena_len, arena_cap
    cdef void* table
    cdef int64_t table_cap
    # MODE_INT: ids of the names 0 <= k < dense_cap, directly (id + 1; 0: none yet)
    cdef int32_t* dense
    cdef int64_t dense_cap
    # MODE_INT: the names of the last edge lines, given ids in one tight loop (_flush)
    cdef int64_t* pend
    cdef int64_t* pend_line
    cdef int64_t npend

    def __cinit__(self, int mode, int delimiter, comments, bint header, int64_t max_line_chars,
                  int64_t max_edges):
        if mode not in (0, 1, 2) or delimiter not in (0, 1, 2, 3, 4):
            raise ValueError(f"mode must be 0, 1 or 2 and delimiter 0-4; got {mode}, {delimiter}")
        cps = [int(c) for c in comments]
        if len(cps) > 64 or any(c < 0 or c > 0x10FFFF for c in cps):
            raise ValueError(f"comments must be at most 64 code points; got {comments!r}")
        self.mode = mode
        self.delimiter = delimiter
        self.n_comments = len(cps)
        for i, c in enumerate(cps):
            self.comment_cps[i] = c
        self.header = header
        self.max_line_chars = max_line_chars
        self.max_edges = max_edges
        self.cap = 1 << 16
        self.a = <int32_t*>malloc(self.cap * sizeof(int32_t))
        self.b = <int32_t*>malloc(self.cap * sizeof(int32_t))
        self.node_cap = 1 << 12
        self.first_line = <int64_t*>malloc(self.node_cap * sizeof(int64_t))
        self.labels = NULL
        self.offs = NULL
        self.arena = NULL
        if mode == MODE_INT:
            self.pend = <int64_t*>malloc(2 * _BATCH * sizeof(int64_t))
            self.pend_line = <int64_t*>malloc(2 * _BATCH * sizeof(int64_t))
            if self.pend == NULL or self.pend_line == NULL:
                raise MemoryError("edge-list tokenizer: out of memory")
            self.labels = <int64_t*>malloc(self.node_cap * sizeof(int64_t))
            self.table = calloc(1 << 13, sizeof(IntSlot))
        else:
            self.offs = <int64_t*>malloc((self.node_cap + 1) * sizeof(int64_t))
            self.arena_cap = 1 << 16
            self.arena = <uint8_t*>malloc(self.arena_cap)
            self.table = calloc(1 << 13, sizeof(StrSlot))
            if self.offs != NULL:
                self.offs[0] = 0
        self.table_cap = 1 << 13
        if (self.a == NULL or self.b == NULL or self.first_line == NULL or self.table == NULL
                or (mode == MODE_INT and self.labels == NULL)
                or (mode != MODE_INT and (self.offs == NULL or self.arena == NULL))):
            raise MemoryError("edge-list tokenizer: out of memory")

    def __dealloc__(self):
        free(self.a)
        free(self.b)
        free(self.labels)
        free(self.first_line)
        free(self.offs)
        free(self.arena)
        free(self.table)
        free(self.dense)
        free(self.pend)
        free(self.pend_line)

    # ------------------------------------------------------------ growth

    cdef int _grow_arcs(self) except -1:
        cdef int64_t cap = self.cap * 2
        cdef int32_t* a = <int32_t*>realloc(self.a, cap * sizeof(int32_t))
        if a == NULL:
            raise MemoryError("edge list: out of memory for the edges")
        self.a = a
        cdef int32_t* b = <int32_t*>realloc(self.b, cap * sizeof(int32_t))
        if b == NULL:
            raise MemoryError("edge list: out of memory for the edges")
        self.b = b
        self.cap = cap
        return 0

    cdef int _grow_nodes(self) except -1:
        cdef int64_t cap = self.node_cap * 2
        if self.n_nodes >= 2147483647:
            raise OverflowError("an edge list may name at most 2^31 - 1 nodes (int32 node ids)")
        cdef int64_t* p = <int64_t*>realloc(self.first_line, cap * sizeof(int64_t))
        if p == NULL:
            raise MemoryError("edge list: out of memory for the nodes")
        self.first_line = p
        if self.mode == MODE_INT:
            p = <int64_t*>realloc(self.labels, cap * sizeof(int64_t))
            if p == NULL:
                raise MemoryError("edge list: out of memory for the nodes")
            self.labels = p
        else:
            p = <int64_t*>realloc(self.offs, (cap + 1) * sizeof(int64_t))
            if p == NULL:
                raise MemoryError("edge list: out of memory for the nodes")
            self.offs = p
        self.node_cap = cap
        return 0

    cdef int _grow_table(self) except -1:
        cdef int64_t cap = self.table_cap * 2, i, j, mask = cap - 1
        cdef int shift
        cdef IntSlot* it
        cdef IntSlot* old_it
        cdef StrSlot* st
        cdef StrSlot* old_st
        if self.mode == MODE_INT:
            it = <IntSlot*>calloc(cap, sizeof(IntSlot))
            if it == NULL:
                raise MemoryError("edge list: out of memory for the node table")
            old_it = <IntSlot*>self.table
            for i in range(self.table_cap):
                if old_it[i].idp1:
                    j = <int64_t>((<uint64_t>old_it[i].key * 0x9E3779B97F4A7C15ULL) >> 17) & mask
                    while it[j].idp1:
                        j = (j + 1) & mask
                    it[j] = old_it[i]
            free(old_it)
            self.table = it
        else:
            st = <StrSlot*>calloc(cap, sizeof(StrSlot))
            if st == NULL:
                raise MemoryError("edge list: out of memory for the node table")
            old_st = <StrSlot*>self.table
            for i in range(self.table_cap):
                if old_st[i].idp1:
                    j = <int64_t>(old_st[i].h >> 17) & mask
                    while st[j].idp1:
                        j = (j + 1) & mask
                    st[j] = old_st[i]
            free(old_st)
            self.table = st
        self.table_cap = cap
        return 0

    # ------------------------------------------------------------ node ids

    cdef int _grow_dense(self, int64_t key) except -1:
        """Cover [0, key] by the direct map (doubling), moving in the names hashed so far."""
        cdef int64_t cap = max(self.dense_cap, <int64_t>1 << 16), i
        while cap <= key:
            cap *= 2
        cdef int32_t* d = <int32_t*>realloc(self.dense, cap * sizeof(int32_t))
        if d == NULL:
            raise MemoryError("edge list: out of memory for the node map")
        memset(d + self.dense_cap, 0, (cap - self.dense_cap) * sizeof(int32_t))
        cdef IntSlot* t = <IntSlot*>self.table
        for i in range(self.table_cap):
            if t[i].idp1 and self.dense_cap <= t[i].key < cap:
                d[t[i].key] = <int32_t>t[i].idp1
        self.dense = d
        self.dense_cap = cap
        return 0

    cdef int64_t _new_node(self, int64_t key, int64_t line) except -1:
        if self.n_nodes >= self.node_cap:
            self._grow_nodes()
        cdef int64_t i = self.n_nodes
        self.labels[i] = key
        self.first_line[i] = line
        self.n_nodes = i + 1
        return i

    cdef inline int64_t _int_id(self, int64_t key, int64_t line) except -1:
        cdef int64_t i
        if 0 <= key < self.dense_cap:
            i = self.dense[key]
            if i:
                return i - 1
            i = self._new_node(key, line)
            self.dense[key] = <int32_t>(i + 1)
            return i
        if 0 <= key < max(<int64_t>1 << 24, 8 * (self.n_nodes + 1)):
            self._grow_dense(key)
            return self._int_id(key, line)
        return self._hashed_id(key, line)

    cdef int _flush(self) except -1:
        """Node ids of the pending int names, in file order (a tight loop: the lookups'
        cache misses overlap, and the next ones are prefetched)."""
        cdef int64_t j, k, key, v, base = self.edges - self.npend, cap = self.dense_cap
        cdef int64_t* pend = self.pend
        cdef int32_t* dense = self.dense
        cdef int32_t* out
        for j in range(2 * self.npend):
            if j + 16 < 2 * self.npend:
                key = pend[j + 16]
                if 0 <= key < cap:
                    __builtin_prefetch(&dense[key])
            key = pend[j]
            if 0 <= key < cap:
                v = dense[key]
                if v:
                    v -= 1
                else:
                    v = self._new_node(key, self.pend_line[j >> 1])
                    dense[key] = <int32_t>(v + 1)
            else:
                v = self._int_id(key, self.pend_line[j >> 1])
                dense = self.dense
                cap = self.dense_cap
            out = self.a if (j & 1) == 0 else self.b
            out[base + (j >> 1)] = <int32_t>v
        self.npend = 0
        return 0

    cdef int64_t _hashed_id(self, int64_t key, int64_t line) except -1:
        cdef int64_t mask = self.table_cap - 1
        cdef int64_t j = <int64_t>((<uint64_t>key * 0x9E3779B97F4A7C15ULL) >> 17) & mask
        cdef IntSlot* t = <IntSlot*>self.table
        while t[j].idp1:
            if t[j].key == key:
                return t[j].idp1 - 1
            j = (j + 1) & mask
        if self.n_nodes >= self.node_cap:
            self._grow_nodes()
        cdef int64_t i = self.n_nodes
        t[j].key = key
        t[j].idp1 = i + 1
        self.labels[i] = key
        self.first_line[i] = line
        self.n_nodes = i + 1
        if 2 * self.n_nodes > self.table_cap:
            self._grow_table()
        return i

    cdef int64_t _text_id(self, const uint8_t* s, Py_ssize_t lo, Py_ssize_t hi) except -1:
        cdef uint64_t h = 1469598103934665603ULL
        cdef Py_ssize_t p, n = hi - lo
        for p in range(lo, hi):
            h = (h ^ s[p]) * 1099511628211ULL
        h ^= h >> 29
        h *= 0xBF58476D1CE4E5B9ULL
        h ^= h >> 32
        cdef int64_t mask = self.table_cap - 1
        cdef int64_t j = <int64_t>(h >> 17) & mask, k
        cdef StrSlot* t = <StrSlot*>self.table
        cdef uint64_t inl = 0
        if n <= 8:
            memcpy(&inl, s + lo, n)
        while t[j].idp1:
            if t[j].h == h and t[j].n == n:
                k = t[j].idp1 - 1
                if n <= 8:
                    if t[j].inl == inl:
                        return k
                elif memcmp(self.arena + self.offs[k], s + lo, n) == 0:
                    return k
            j = (j + 1) & mask
        if self.n_nodes >= self.node_cap:
            self._grow_nodes()
        cdef int64_t need = self.arena_len + n, cap
        cdef uint8_t* ar
        if need > self.arena_cap:
            cap = self.arena_cap
            while cap < need:
                cap *= 2
            ar = <uint8_t*>realloc(self.arena, cap)
            if ar == NULL:
                raise MemoryError("edge list: out of memory for the node names")
            self.arena = ar
            self.arena_cap = cap
        memcpy(self.arena + self.arena_len, s + lo, n)
        self.arena_len = need
        cdef int64_t i = self.n_nodes
        t[j].h = h
        t[j].idp1 = i + 1
        t[j].inl = inl
        t[j].n = n
        self.offs[i + 1] = need
        self.first_line[i] = self.lineno
        self.n_nodes = i + 1
        if 2 * self.n_nodes > self.table_cap:
            self._grow_table()
        return i

    # ------------------------------------------------------------ tokens

    cdef int _int_token(self, const uint8_t* s, Py_ssize_t lo, Py_ssize_t hi, int64_t* out) noexcept:
        """0: ok; 1: not -?[0-9]+; 2: does not fit in int64."""
        cdef bint neg = False
        cdef uint64_t v = 0
        cdef uint8_t c
        if lo < hi and s[lo] == 0x2D:
            neg = True
            lo += 1
        if lo >= hi:
            return 1
        cdef int status = 0
        cdef Py_ssize_t end = hi if hi - lo <= 18 else lo + 18
        while lo < end:  # up to 18 digits cannot overflow: no check
            c = s[lo]
            if c < 0x30 or c > 0x39:
                return 1
            v = v * 10 + (c - 0x30)
            lo += 1
        while lo < hi:
            c = s[lo]
            if c < 0x30 or c > 0x39:
                return 1
            if status == 0:
                if v > (0x7FFFFFFFFFFFFFFFULL - (c - 0x30)) // 10:
                    status = 2  # keep checking the syntax: a bad token is an error first
                else:
                    v = v * 10 + (c - 0x30)
            lo += 1
        if status:
            return status
        out[0] = -<int64_t>v if neg else <int64_t>v
        return 0

    cdef int _token(self, const uint8_t* s, Py_ssize_t lo, Py_ssize_t hi, int64_t* node) except -1:
        """Node id of the token s[lo:hi]: 0 ok, EV_LINE (not an int), EV_BIGINT."""
        cdef int64_t v
        cdef int r
        if self.mode != MODE_TEXT:
            r = self._int_token(s, lo, hi, &v)
            if r == 1:
                return EV_LINE
            if self.mode == MODE_INT:
                if r == 2:
                    return EV_BIGINT
                node[0] = v  # the name itself: its id is found by _flush
                return 0
        node[0] = self._text_id(s, lo, hi)
        return 0

    # ------------------------------------------------------------ lines

    cdef int _edge_line(self, const uint8_t* s, Py_ssize_t lo, Py_ssize_t hi) except -1:
        """One stripped, non-blank, non-comment line: 0, or the event it raises."""
        cdef Py_ssize_t p, nxt, x0 = 0, y0 = 0, x1 = 0, y1 = 0, q
        cdef int64_t ntok = 0, id0, id1
        cdef uint8_t sep, c
        cdef int r
        if self.edges >= self.max_edges:
            return EV_LIMIT
        if self.delimiter == D_AUTO:
            self.delimiter = D_WS
            for p in range(lo, hi):
                if s[p] == 0x2C:
                    self.delimiter = D_COMMA
                    break
            if self.delimiter == D_WS:
                for p in range(lo, hi):
                    if s[p] == 0x3B:
                        self.delimiter = D_SEMI
                        break
        if self.delimiter == D_WS:
            p = lo
            while p < hi:
                # a token: a run of code points that are not whitespace
                q = p
                while q < hi:
                    c = s[q]
                    if c < 0x80:
                        if c == 0x20 or (0x09 <= c <= 0x0D) or (0x1C <= c <= 0x1F):
                            break
                        q += 1
                    else:
                        if _is_ws(_cp(s, q, &nxt)):
                            break
                        q = nxt
                if ntok == 0:
                    x0, y0 = p, q
                elif ntok == 1:
                    x1, y1 = p, q
                ntok += 1
                p = q
                while p < hi:
                    c = s[p]
                    if c < 0x80:
                        if not (c == 0x20 or (0x09 <= c <= 0x0D) or (0x1C <= c <= 0x1F)):
                            break
                        p += 1
                    else:
                        if not _is_ws(_cp(s, p, &nxt)):
                            break
                        p = nxt
            if ntok < 2:
                return EV_LINE
        else:
            sep = 0x2C if self.delimiter == D_COMMA else (0x09 if self.delimiter == D_TAB else 0x3B)
            p = lo
            q = lo
            while q < hi and s[q] != sep:
                q += 1
            x0, y0 = p, q
            ntok = 1
            if q < hi:
                p = q + 1
                q = p
                while q < hi and s[q] != sep:
                    q += 1
                x1, y1 = p, q
                ntok = 2
                while q < hi:
                    if s[q] == sep:
                        ntok += 1
                    q += 1
            if ntok < 2:
                return EV_LINE
            _strip(s, &x0, &y0)
            _strip(s, &x1, &y1)
            if x0 >= y0 or x1 >= y1:
                return EV_LINE
        r = self._token(s, x0, y0, &id0)
        if r:
            return r
        r = self._token(s, x1, y1, &id1)
        if r:
            return r
        if self.edges >= self.cap:
            self._grow_arcs()
        if self.mode == MODE_INT:
            self.pend[2 * self.npend] = id0
            self.pend[2 * self.npend + 1] = id1
            self.pend_line[self.npend] = self.lineno
            self.npend += 1
            self.edges += 1
            if self.npend == _BATCH:
                self._flush()
        else:
            self.a[self.edges] = <int32_t>id0
            self.b[self.edges] = <int32_t>id1
            self.edges += 1
        if self.first_edge_line == 0:
            self.first_edge_line = self.lineno
        if ntok > 2:
            self.lines_extra += 1
            if ntok - 2 > self.extra_max:
                self.extra_max = ntok - 2
        return 0

    def feed(self, const uint8_t[::1] buf, Py_ssize_t start, Py_ssize_t stop, bint final):
        """Read the complete lines of ``buf[start:stop]``; returns ``(event, consumed)``.

        ``consumed`` is where reading stopped: the start of an incomplete last line
        (EV_MORE, not ``final``: keep those bytes and append more), or the end of the line
        an event is about (EV_HEADER, EV_COMMENT), or the start of the line in error.
        """
        if not (0 <= start <= stop <= buf.shape[0]):
            raise ValueError(f"need 0 <= start <= stop <= len(buf); got {start}, {stop}, {buf.shape[0]}")
        if self.a == NULL:
            raise ValueError("the tokenizer's arcs were taken (take_arcs): it reads no more")
        if buf.shape[0] == 0:
            return EV_MORE, start
        cdef Py_ssize_t consumed = start
        cdef int ev = self._feed(&buf[0], start, stop, final, &consumed)
        if self.npend:
            self._flush()
        return ev, consumed

    cdef int _feed(self, const uint8_t* s, Py_ssize_t start, Py_ssize_t stop, bint final,
                   Py_ssize_t* consumed) except -1:
        cdef Py_ssize_t pos = start, p, ls, le, nxt, k
        cdef int64_t chars
        cdef bint ascii
        cdef uint8_t c
        cdef uint32_t first
        cdef int i, r
        while True:
            if self.pending_cr:
                if pos < stop:
                    if s[pos] == 0x0A:
                        pos += 1
                    self.pending_cr = False
                elif final:
                    self.pending_cr = False
                else:
                    consumed[0] = pos
                    return EV_MORE
            if pos >= stop:
                consumed[0] = pos
                return EV_MORE
            # the line: up to '\n', '\r' or '\r\n'; valid UTF-8; at most max_line_chars
            p = pos
            chars = 0
            ascii = True
            while p < stop:
                c = s[p]
                if c < 0x80:
                    if c == 0x0A or c == 0x0D:
                        break
                    p += 1
                else:
                    k = _utf8_len(s, p, stop)
                    if k < 0 or (k == 0 and final):
                        self.ev_start = p
                        self.ev_lineno = self.lineno + 1
                        consumed[0] = pos
                        return EV_UTF8
                    if k == 0:
                        break
                    p += k
                    ascii = False
                chars += 1
                if chars > self.max_line_chars:
                    self.ev_lineno = self.lineno + 1
                    self.ev_start = pos
                    self.ev_end = p
                    consumed[0] = pos
                    return EV_LONG
            if p >= stop or (p < stop and s[p] >= 0x80):
                if not final:
                    consumed[0] = pos
                    return EV_MORE  # incomplete: wait for the rest of the line
                nxt = p
            else:
                chars += 1  # the line end counts as one character
                if chars > self.max_line_chars:
                    self.ev_lineno = self.lineno + 1
                    self.ev_start = pos
                    self.ev_end = p
                    consumed[0] = pos
                    return EV_LONG
                nxt = p + 1
                if s[p] == 0x0D:
                    if p + 1 < stop:
                        if s[p + 1] == 0x0A:
                            nxt = p + 2
                    elif not final:
                        self.pending_cr = True
            self.lineno += 1
            ls = pos
            le = p
            _strip(s, &ls, &le)
            if ls >= le:
                pos = nxt
                continue
            first = _cp(s, ls, &k)
            for i in range(self.n_comments):
                if first == self.comment_cps[i]:
                    break
            else:
                i = -1
            if i >= 0:
                if not self.directed:
                    r = _says_directed(s, ls, le, ascii)
                    if r == 1:
                        self.directed = True
                    elif r == 2:
                        self.ev_start = ls
                        self.ev_end = le
                        self.ev_lineno = self.lineno
                        consumed[0] = nxt
                        return EV_COMMENT
                pos = nxt
                continue
            if self.header and not self.header_done:
                self.header_done = True
                self.ev_start = ls
                self.ev_end = le
                self.ev_lineno = self.lineno
                consumed[0] = nxt
                return EV_HEADER
            r = self._edge_line(s, ls, le)
            if r:
                self.ev_start = pos
                self.ev_end = p
                self.ev_lineno = self.lineno
                consumed[0] = pos
                return r
            pos = nxt

    # ------------------------------------------------------------ results

    def take_arcs(self):
        """The (a, b) int32 node-id arrays of the edge lines; the tokenizer lets go of them."""
        cdef int64_t m = self.edges
        if self.a == NULL:
            raise ValueError("the tokenizer's arcs were taken already")
        cdef int32_t* a = <int32_t*>realloc(self.a, max(m, 1) * sizeof(int32_t))
        cdef int32_t* b = <int32_t*>realloc(self.b, max(m, 1) * sizeof(int32_t))
        if a == NULL or b == NULL:
            raise MemoryError("edge list: out of memory")
        self.a = NULL
        self.b = NULL
        self.cap = 0
        return _array_from(a, m, cnp.NPY_INT32), _array_from(b, m, cnp.NPY_INT32)

    def int_labels(self):
        """MODE_INT: the int64 label of each node, by id."""
        if self.mode != MODE_INT:
            raise ValueError("int_labels: the tokenizer keeps names as text")
        out = np.empty(self.n_nodes, np.int64)
        cdef int64_t[::1] o = out
        if self.n_nodes:
            memcpy(&o[0], self.labels, self.n_nodes * sizeof(int64_t))
        return out

    def first_lines(self):
        """The line of each node's first appearance, by id (int64)."""
        out = np.empty(self.n_nodes, np.int64)
        cdef int64_t[::1] o = out
        if self.n_nodes:
            memcpy(&o[0], self.first_line, self.n_nodes * sizeof(int64_t))
        return out

    def text_labels(self):
        """MODE_TEXT/INTTEXT: each node's name as a str, by id."""
        if self.mode == MODE_INT:
            raise ValueError("text_labels: the tokenizer keeps names as ints")
        cdef int64_t i
        out = [None] * self.n_nodes
        for i in range(self.n_nodes):
            out[i] = PyUnicode_DecodeUTF8(<char*>self.arena + self.offs[i],
                                          self.offs[i + 1] - self.offs[i], NULL)
        return out


# ----------------------------------------------------------------- CSR


cdef inline int _bits(int64_t n) noexcept nogil:
    """Bits of the largest node id (at least 1): the key layout of a graph on n nodes."""
    cdef int b = 1
    while b < 31 and ((<int64_t>1) << b) < n:
        b += 1
    return b


cdef inline void _insertion_sort(uint32_t* x, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef uint32_t v
    for i in range(1, n):
        v = x[i]
        j = i - 1
        while j >= 0 and x[j] > v:
            x[j + 1] = x[j]
            j -= 1
        x[j + 1] = v


cdef void _radix_sort32(uint32_t* x, uint32_t* tmp, Py_ssize_t n, int bits,
                        Py_ssize_t* count) noexcept nogil:
    """Sort n values < 2^bits (8-bit digits; ``tmp`` holds n, ``count`` 256)."""
    cdef int passes = (bits + 7) // 8, p, shift
    cdef Py_ssize_t i, d, total, c
    cdef uint32_t* src = x
    cdef uint32_t* dst = tmp
    cdef uint32_t* t
    for p in range(passes):
        shift = 8 * p
        memset(count, 0, 256 * sizeof(Py_ssize_t))
        for i in range(n):
            count[(src[i] >> shift) & 0xFF] += 1
        if count[(src[0] >> shift) & 0xFF] == n:
            continue  # every value has this digit: the pass would not move anything
        total = 0
        for d in range(256):
            c = count[d]
            count[d] = total
            total += c
        for i in range(n):
            d = (src[i] >> shift) & 0xFF
            dst[count[d]] = src[i]
            count[d] += 1
        t = src
        src = dst
        dst = t
    if src != x:
        memcpy(x, src, n * sizeof(uint32_t))


def csr_by_rows(int64_t n, const int32_t[::1] a, const int32_t[::1] b):
    """The undirected simple graph of the arcs ``(a[i], b[i])`` as CSR, and what they hold.

    Each arc end is written, as ``(row << 32) | (other end << 1) | orientation``, into the
    block of rows its row belongs to (2^14 rows a block: sequential writes to a few hundred
    streams), then block by block, in cache, into its row (a counting sort); each row is then
    sorted (insertion sort when short, radix sort when long) and its duplicates dropped in
    place. Returns ``(indptr int64, indices int32, self_loops, arcs, pairs)``: distinct
    oriented non-loop arcs and distinct unordered pairs.
    """
    cdef Py_ssize_t m = a.shape[0], i, j, s, e, w, k, t
    cdef int64_t loops = 0, arcs = 0, pairs = 0, u, maxdeg = 0, total = 0, base, top
    cdef int64_t x, v, prev, prevx
    cdef uint64_t y
    cdef bint bad = False
    cdef int B = _bits(n)
    cdef int SHIFT = 14
    if b.shape[0] != m or not (0 <= n <= 2147483647):
        raise ValueError(f"a and b must have the same length and 0 <= n < 2^31; got {m}, {b.shape[0]}, n={n}")
    cdef Py_ssize_t nblocks = ((n + (1 << SHIFT) - 1) >> SHIFT) + 1
    indptr_arr = np.zeros(n + 1, np.int64)
    cdef int64_t[::1] indptr = indptr_arr
    cdef int64_t* bstart = <int64_t*>calloc(nblocks + 1, sizeof(int64_t))
    cdef int64_t* bpos = <int64_t*>malloc((nblocks + 1) * sizeof(int64_t))
    if bstart == NULL or bpos == NULL:
        free(bstart)
        free(bpos)
        raise MemoryError("edge list: out of memory for the adjacency")
    with nogil:
        for i in range(m):
            if a[i] < 0 or a[i] >= n or b[i] < 0 or b[i] >= n:
                bad = True
                break
            if a[i] == b[i]:
                loops += 1
                continue
            bstart[(a[i] >> SHIFT) + 1] += 1
            bstart[(b[i] >> SHIFT) + 1] += 1
    if bad:
        free(bstart)
        free(bpos)
        raise ValueError(f"node ids must be in [0, {n}); got a[{i}], b[{i}] = {a[i]}, {b[i]}")
    for k in range(nblocks):
        bstart[k + 1] += bstart[k]
    total = bstart[nblocks]
    cdef uint64_t* tmp = <uint64_t*>malloc(max(total, 1) * sizeof(uint64_t))
    cdef uint32_t* ent = <uint32_t*>malloc(max(total, 1) * sizeof(uint32_t))
    cdef int64_t* cnt = <int64_t*>malloc(((1 << SHIFT) + 1) * sizeof(int64_t))
    cdef Py_ssize_t* count = <Py_ssize_t*>malloc(256 * sizeof(Py_ssize_t))
    cdef uint32_t* rtmp = NULL
    if tmp == NULL or ent == NULL or cnt == NULL or count == NULL:
        free(tmp)
        free(ent)
        free(cnt)
        free(count)
        free(bstart)
        free(bpos)
        raise MemoryError("edge list: out of memory for the adjacency")
    with nogil:
        memcpy(bpos, bstart, (nblocks + 1) * sizeof(int64_t))
        for i in range(m):
            if a[i] != b[i]:
                tmp[bpos[a[i] >> SHIFT]] = ((<uint64_t>a[i]) << 32) | ((<uint64_t>b[i]) << 1)
                bpos[a[i] >> SHIFT] += 1
                tmp[bpos[b[i] >> SHIFT]] = ((<uint64_t>b[i]) << 32) | ((<uint64_t>a[i]) << 1) | 1
                bpos[b[i] >> SHIFT] += 1
        # block by block: count the rows, place the entries, sort and deduplicate each row
        w = 0
        for k in range(nblocks - 1):
            base = (<int64_t>k) << SHIFT
            top = min(base + (1 << SHIFT), n)
            memset(cnt, 0, ((1 << SHIFT) + 1) * sizeof(int64_t))
            for i in range(bstart[k], bstart[k + 1]):
                cnt[((tmp[i] >> 32) - base) + 1] += 1
            for t in range(top - base):
                if cnt[t + 1] > maxdeg:
                    maxdeg = cnt[t + 1]
                cnt[t + 1] += cnt[t]
            for i in range(bstart[k], bstart[k + 1]):
                y = tmp[i]
                t = <Py_ssize_t>((y >> 32) - base)
                ent[bstart[k] + cnt[t]] = <uint32_t>(y & 0xFFFFFFFFULL)
                cnt[t] += 1
            # cnt[t] is now the end of row base + t within the block
            s = bstart[k]
            for t in range(top - base):
                u = base + t
                e = bstart[k] + cnt[t]
                if e - s <= 48:
                    _insertion_sort(ent + s, e - s)
                else:
                    if rtmp == NULL:
                        rtmp = <uint32_t*>malloc(max(maxdeg, 1) * sizeof(uint32_t))
                        if rtmp == NULL:
                            bad = True
                            break
                    _radix_sort32(ent + s, rtmp, e - s, B + 1, count)
                indptr[u] = w
                prev = -1
                prevx = -1
                for j in range(s, e):
                    x = ent[j]
                    v = x >> 1
                    if v > u and x != prevx:
                        arcs += 1
                    prevx = x
                    if v != prev:
                        ent[w] = <uint32_t>v
                        w += 1
                        prev = v
                        if v > u:
                            pairs += 1
                s = e
            if bad:
                break
            # a later block can hold a longer row: the scratch of the radix sort grows with it
            if rtmp != NULL and k + 1 < nblocks - 1:
                free(rtmp)
                rtmp = NULL
                maxdeg = 0
        indptr[n] = w
    free(tmp)
    free(cnt)
    free(count)
    free(bstart)
    free(bpos)
    free(rtmp)
    if bad:
        free(ent)
        raise MemoryError("edge list: out of memory for sorting a row")
    cdef uint32_t* shrunk = <uint32_t*>realloc(ent, max(w, 1) * sizeof(uint32_t))
    if shrunk != NULL:
        ent = shrunk
    return indptr_arr, _array_from(ent, w, cnp.NPY_INT32), loops, arcs, pairs
