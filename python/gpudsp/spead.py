#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""SPEAD over UDP with spead2 (docs/spead.md): the MeerKAT / katgpucbf
formats and the receive and send plumbing the SPEAD blocks share.

spead2 is optional: everything else in gr-gpudsp works without it, and the
SPEAD blocks refuse to construct with a message saying how to install it.
Receiving uses spead2's chunk streams: heaps are placed straight into large
numpy buffers by C++ placement functions of this module
(gnuradio/gpudsp/network/spead_place.h), so Python touches each chunk
(megabytes), never a packet."""

import ipaddress
import logging
import os
import sys
import threading
import time

import numpy as np

from .gpudsp_python import _spead

__all__ = ["import_spead2", "SPEAD2_VERSION", "PYDEPS", "DEFAULT_PORT", "parse_endpoints",
           "chunk_receiver", "new_params", "udp_sender", "rejected_packets", "descriptor_heap",
           "cnt_sequence", "descriptor_clock", "DESCRIPTOR_INTERVAL"]

SPEAD2_VERSION = "4.5.1"  # pinned: the C layout of chunk_place_data is spead2 4.x's
# Where scripts/quickstart.sh installs spead2 (pip --target): Debian 12
# refuses pip installs into the system Python.
PYDEPS = os.environ.get("GPUDSP_PYDEPS", "/usr/local/lib/gpudsp/python")

# Item IDs (katgpucbf src/katgpucbf/spead.py, MeerKAT ICD).
TIMESTAMP_ID = 0x1600
DIGITISER_ID_ID = 0x3101
DIGITISER_STATUS_ID = 0x3102
ADC_SAMPLES_ID = 0x3300
FENG_ID_ID = 0x4101
FREQUENCY_ID = 0x4103
FENG_RAW_ID = 0x4300
XENG_RAW_ID = 0x1800
DEFAULT_PORT = 7148
FLAVOUR = (4, 64, 48, 0)  # SPEAD-64-48
STATUS_SATURATION_FLAG_BIT = 1
STATUS_SATURATION_COUNT_SHIFT = 32
PREAMBLE_BYTES = 72  # header + 8 item pointers: the packet size over the payload
DIG_HEAP_SAMPLES = 4096
SLOTS = _spead.SLOTS


_spead2 = None  # the module, once import_spead2 has checked it


def import_spead2():
    """spead2, from the system or from PYDEPS; ImportError saying how to
    install it otherwise. Checked once: the sinks call it per heap sent."""
    global _spead2
    if _spead2 is not None:
        return _spead2
    if os.path.isdir(PYDEPS) and PYDEPS not in sys.path:
        sys.path.append(PYDEPS)  # after the system's own: a system spead2 wins
    try:
        import spead2
        import spead2.recv
        import spead2.send
    except ImportError:
        raise ImportError(
            f"gr-gpudsp's SPEAD blocks need spead2 {SPEAD2_VERSION}, which is not installed: "
            f"run scripts/quickstart.sh (it installs it into {PYDEPS}), or "
            f"/usr/bin/python3 -m pip install --no-deps --target {PYDEPS} "
            f"spead2=={SPEAD2_VERSION}") from None
    if int(spead2.__version__.split(".")[0]) != 4:
        raise ImportError(f"gr-gpudsp needs spead2 4.x (found {spead2.__version__}): "
                          f"install spead2=={SPEAD2_VERSION}")
    _count_rejected_packets()
    _spead2 = spead2
    return spead2


def warn(logger, message):
    """Warn through a GNU Radio block logger (warn) or a Python one (warning)."""
    (getattr(logger, "warning", None) or logger.warn)(message)


def check_positive(who, **values):
    """Raise ValueError naming the first value that is not a positive integer."""
    for name, v in values.items():
        if int(v) != v or v <= 0:
            raise ValueError(f"{who}: {name} must be a positive integer, got {v}")


def parse_endpoints(spec, default_port=DEFAULT_PORT):
    """'239.10.0.0+7:7148,127.0.0.1:7149' -> [(host, port), ...]; 'A+N'
    is N + 1 consecutive addresses (MeerKAT's eight groups per
    polarisation are '239.x.y.z+7:7148')."""
    out = []
    for part in str(spec).replace(" ", "").split(","):
        if not part:
            continue
        host, _, port = part.rpartition(":") if ":" in part else (part, "", str(default_port))
        count = 0
        if "+" in host:
            host, n = host.split("+")
            count = int(n)
        try:
            base = ipaddress.IPv4Address(host)
            port = int(port)
        except ValueError as e:
            raise ValueError(f"bad SPEAD endpoint {part!r} (expected ADDRESS[+N]:PORT): {e}") \
                from None
        if not 0 < port < 65536 or count < 0:
            raise ValueError(f"bad SPEAD endpoint {part!r}")
        out += [(str(base + i), port) for i in range(count + 1)]
    if not out:
        raise ValueError(f"no SPEAD endpoint in {spec!r}")
    return out


# spead2 drops datagrams that are not SPEAD packets, or longer than a
# reader's max_size, before any stream sees them, logging "packet rejected
# ..." or "dropped packet due to truncation" (at info level) and counting
# them nowhere: count them here, process-wide, and warn.
_rejected = {"count": 0}
_rejected_lock = threading.Lock()


class _RejectedCounter(logging.Handler):
    def emit(self, record):
        msg = record.getMessage()
        if any(w in msg for w in ("rejected", "too short", "malformed", "truncation")):
            with _rejected_lock:
                _rejected["count"] += 1
                n = _rejected["count"]
            if n & (n - 1) == 0:  # 1, 2, 4, 8...: warn without flooding
                logging.getLogger("gnuradio.gpudsp.spead").warning(
                    "dropped a datagram that is not a valid SPEAD packet or is too long "
                    "(%s); %d so far", msg, n)


_handler = None


def _count_rejected_packets():
    global _handler
    if _handler is None:
        _handler = _RejectedCounter(logging.INFO)
        log = logging.getLogger("spead2")
        log.addHandler(_handler)
        if log.level == logging.NOTSET or log.level > logging.INFO:
            log.setLevel(logging.INFO)
        log.propagate = False  # spead2's info lines would otherwise reach the root logger


def rejected_packets():
    """Datagrams spead2 rejected as not SPEAD (all streams of this process)."""
    with _rejected_lock:
        return _rejected["count"]


_STAT_NAMES = {  # our stat slot -> spead2 stat name
    "c_stat_bad_timestamp": "gpudsp_bad_timestamp",
    "c_stat_bad_size": "gpudsp_bad_size",
    "c_stat_missing_items": "gpudsp_missing_items",
    "c_stat_bad_id": "gpudsp_bad_id",
    "c_stat_bad_frequency": "gpudsp_bad_frequency",
    "c_stat_out_of_window": "gpudsp_out_of_window",
    "c_stat_epochs": "gpudsp_epochs",
    "c_stat_stop_heaps": "gpudsp_stop_heaps",
    "c_stat_descriptors": "gpudsp_descriptor_heaps",  # metadata: counted, never a warning
}
_REPORTED_STATS = ("heaps", "packets", "too_old_heaps", "rejected_heaps",
                   "incomplete_heaps_evicted", "incomplete_heaps_flushed") + \
    tuple(_STAT_NAMES.values())
_BAD_STATS = ("gpudsp_bad_timestamp", "gpudsp_bad_size", "gpudsp_missing_items",
              "gpudsp_bad_id", "gpudsp_bad_frequency", "gpudsp_out_of_window", "too_old_heaps")


def new_params(kind, **slots):
    """A placement parameter array for `kind` ("digitiser" or "fengine"):
    zeros, no heap seen yet (s_newest, s_prev_newest, s_terminal = -1),
    then `slots` {slot name: value}."""
    n = _spead.DIG_N_PARAMS if kind == "digitiser" else _spead.FENG_N_PARAMS
    p = np.zeros(n, np.int64)
    for slot, value in dict(dict(s_newest=-1, s_prev_newest=-1, s_terminal=-1),
                            **slots).items():
        p[SLOTS[slot]] = value
    return p


class chunk_receiver:
    """A spead2 chunk stream whose heaps are placed by this module's C++
    placement (`kind` "digitiser" or "fengine"): chunks of `chunk_bytes`
    bytes, `slots` heaps (present flags) and `extra_words` uint64 per heap,
    from UDP `endpoints` [(host, port)] (multicast groups are joined on
    `interface_address`)."""

    def __init__(self, kind, params, items, slots, chunk_bytes, extra_words, endpoints,
                 interface_address="", max_chunks=4, ring_chunks=4, buffer_size=16 << 20,
                 max_packet_size=9200, stop_heaps=0, jump_chunks=64, confirm_heaps=4,
                 logger=None):
        spead2 = import_spead2()
        self._spead2 = spead2
        self.logger = logger or logging.getLogger("gnuradio.gpudsp.spead")
        config = spead2.recv.StreamConfig(max_heaps=8, stop_on_stop_item=False)
        self.params = new_params(
            kind, **params, c_stop_target=stop_heaps, c_window=max_chunks,
            c_jump_chunks=jump_chunks, c_confirm_heaps=confirm_heaps,
            **{slot: config.add_stat(name) for slot, name in _STAT_NAMES.items()})
        chunk_config = spead2.recv.ChunkStreamConfig(
            items=items, max_chunks=max_chunks, max_heap_extra=8 * extra_words,
            place=_spead.place_callback(kind, self.params))
        self._data_ring = spead2.recv.ChunkRingbuffer(ring_chunks)
        self._free_ring = spead2.recv.ChunkRingbuffer(ring_chunks + max_chunks + 2)
        self._stream = spead2.recv.ChunkRingStream(spead2.ThreadPool(1), config, chunk_config,
                                                   self._data_ring, self._free_ring)
        for _ in range(ring_chunks + max_chunks + 2):
            self._stream.add_free_chunk(spead2.recv.Chunk(
                present=np.zeros(slots, np.uint8), data=np.zeros(chunk_bytes, np.uint8),
                extra=np.zeros(slots * extra_words, np.uint64)))
        seen = set()
        for host, port in endpoints:
            if (host, port) in seen:
                continue
            seen.add((host, port))
            if ipaddress.IPv4Address(host).is_multicast:
                self._stream.add_udp_reader(host, port, max_size=max_packet_size,
                                            buffer_size=buffer_size,
                                            interface_address=interface_address or "0.0.0.0")
            else:
                self._stream.add_udp_reader(port, max_size=max_packet_size,
                                            buffer_size=buffer_size, bind_hostname=host)
        self._reported = {}
        self._stopped = False
        self._last_id = -1

    def get(self, timeout):
        """The next chunk, or None after `timeout` seconds without one; raises
        EOFError at the end of the stream: after the last chunk before the
        stop heaps that end it (stop_heaps), or once spead2 has stopped."""
        deadline = time.monotonic() + timeout
        while True:
            if self._finished():
                raise EOFError
            try:
                chunk = self._data_ring.get_nowait()
                self._last_id = max(self._last_id, chunk.chunk_id)
                return chunk
            except self._spead2.Empty:
                if time.monotonic() >= deadline:
                    return None
                time.sleep(0.0005)
            except self._spead2.Stopped:
                raise EOFError from None

    def _finished(self):
        # The terminal stop heap sits `window` chunks past the last data
        # chunk, so spead2 has handed over everything up to that one.
        terminal = self.params[SLOTS["s_terminal"]]
        if terminal < 0:
            return False
        last = terminal - self.params[SLOTS["c_window"]]
        return self._last_id >= last

    def release(self, chunk):
        try:
            self._stream.add_free_chunk(chunk)
        except (self._spead2.Stopped, ValueError):
            pass

    def stats(self):
        """spead2's counters and this module's (gpudsp_*), by name."""
        s = self._stream.stats
        return {name: int(s[name]) for name in _REPORTED_STATS}

    def warn_bad_heaps(self, who):
        """Log a warning for every kind of dropped heap whose count grew
        (once per chunk: reads only the drop counters)."""
        s = self._stream.stats
        for name in _BAD_STATS:
            count = int(s[name])
            grown = count - self._reported.get(name, 0)
            if grown > 0:
                warn(self.logger, f"{who}: dropped {grown} heap(s): "
                                  f"{name.replace('gpudsp_', '').replace('_', ' ')} "
                                  f"({count} in all)")
                self._reported[name] = count

    def stop(self):
        if not self._stopped:
            self._stopped = True
            self._stream.stop()


def make_heap(flavour, immediates, raw_id=None, raw=None):
    """A send heap of immediate items {id: value} (48-bit), repeated in every
    packet, and one array item `raw` (referenced, not copied, when it is a
    contiguous numpy array)."""
    sp = import_spead2()
    heap = sp.send.Heap(flavour)
    heap.repeat_pointers = True
    for item_id, value in immediates.items():
        heap.add_item(sp.Item(item_id, f"0x{item_id:x}", "", (), format=[("u", 48)],
                              value=int(value)))
    if raw is not None:
        raw = np.ascontiguousarray(raw)
        heap.add_item(sp.Item(raw_id, f"0x{raw_id:x}", "", raw.shape, dtype=raw.dtype,
                              value=raw))
    return heap


# katgpucbf's engines send their descriptors every 5 s (SPEAD_DESCRIPTOR_INTERVAL_S).
DESCRIPTOR_INTERVAL = 5.0
IMMEDIATE = "immediate"  # the kind of an immediate (48-bit unsigned) item descriptor


def descriptor_heap(flavour, descriptors):
    """A heap of descriptors and no values: [(id, name, description, shape,
    dtype, a spead2 format such as [("i", 10)], or IMMEDIATE)]. Sent at start-up and every few seconds, it lets a
    receiver that knows nothing in advance (a plain spead2 ItemGroup) decode
    the data heaps; the names are the MeerKAT ICD's, as katgpucbf sends them."""
    sp = import_spead2()
    heap = sp.send.Heap(flavour)
    for item_id, name, description, shape, kind in descriptors:
        if kind == IMMEDIATE:
            item = sp.Item(item_id, name, description, (), format=[("u", FLAVOUR[2])])
        elif isinstance(kind, list):
            item = sp.Item(item_id, name, description, tuple(shape), format=kind)
        else:
            item = sp.Item(item_id, name, description, tuple(shape), dtype=np.dtype(kind))
        heap.add_descriptor(item)
    return heap


def check_interval(who, descriptor_interval):
    """descriptor_interval as a float >= 0 (0: descriptors only at start-up)."""
    v = float(descriptor_interval)
    if not v >= 0 or v == float("inf"):
        raise ValueError(f"{who}: descriptor_interval must be a finite number of seconds >= 0 "
                         f"(0: only at start-up), got {descriptor_interval}")
    return v


class cnt_sequence:
    """Heap cnts as katgpucbf numbers them (spead2's set_cnt_sequence(first,
    step), one sequence per engine): an engine's k-th heap, counting every
    heap it sends (descriptors included), has cnt first + k x step. Engines
    with distinct first < step never share a cnt. The sequence continues
    over a block's runs, so no cnt repeats while the block lives."""

    def __init__(self, first, step):
        self.first, self.step, self.sent = int(first), int(step), 0

    def next(self):
        cnt = self.first + self.sent * self.step
        self.sent += 1
        return cnt


class descriptor_clock:
    """When a sink sends descriptors: at start-up, then every `interval`
    seconds (of the wall clock, checked as data is sent; 0: never again)."""

    def __init__(self, interval):
        self.interval = float(interval)
        self._next = None

    def start(self):
        self._next = time.monotonic() + self.interval if self.interval > 0 else float("inf")

    def due(self):
        """Whether descriptors are due now (and when the next ones are)."""
        now = time.monotonic()
        if self._next is None or now < self._next:
            return False
        # The next deadline on the fixed grid, so a slow flowgraph does not drift.
        missed = int((now - self._next) // self.interval) + 1
        self._next += missed * self.interval
        return True


class udp_sender:
    """A spead2 UDP send stream to `endpoints` (one substream each) with the
    SPEAD-64-48 flavour, sending heaps of immediate items + one array item,
    every packet repeating the immediates (as MeerKAT's receivers expect)."""

    GROUP = 64  # heaps per send_heaps call (spead2's queue must hold a whole group)

    def __init__(self, endpoints, max_packet_size, rate=0.0, interface_address="", ttl=4,
                 buffer_size=1 << 20):
        spead2 = import_spead2()
        self._spead2 = spead2
        config = spead2.send.StreamConfig(max_packet_size=max_packet_size, rate=rate,
                                          max_heaps=self.GROUP)
        multicast = any(ipaddress.IPv4Address(h).is_multicast for h, _ in endpoints)
        if multicast:
            self._stream = spead2.send.UdpStream(spead2.ThreadPool(1), endpoints, config,
                                                 buffer_size, ttl, interface_address or "0.0.0.0")
        else:
            self._stream = spead2.send.UdpStream(spead2.ThreadPool(1), endpoints, config,
                                                 buffer_size, interface_address)
        self.flavour = spead2.Flavour(*FLAVOUR)

    def heap(self, immediates, raw_id=None, raw=None):
        """A heap of immediate items {id: value} (48-bit) and one array item."""
        return make_heap(self.flavour, immediates, raw_id, raw)

    def send(self, heaps, rate=-1.0):
        """Send [(heap, cnt, substream)] as one group, in order; rate -1:
        the stream's rate, 0: as fast as possible (descriptors, as katgpucbf
        sends them, so they do not delay the data)."""
        sp = self._spead2
        refs = [sp.send.HeapReference(h, cnt=int(cnt), substream_index=int(s), rate=float(rate))
                for h, cnt, s in heaps]
        for i in range(0, len(refs), self.GROUP):
            self._stream.send_heaps(refs[i:i + self.GROUP], sp.send.GroupMode.SERIAL)

    def send_stop(self, substreams):
        sp = self._spead2
        for s in substreams:
            heap = sp.send.Heap(self.flavour)
            heap.add_end()
            self._stream.send_heap(heap, substream_index=int(s))
