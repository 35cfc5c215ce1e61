"""Parsers shared by the output tests: the agent's summary (and SIGUSR1 counters)
on stderr, received line files, drop markers. See /work/spec/issue8-cli.md."""
import json, re

RE_TOTALS = re.compile(
    r"^agent: (?:counters now: )?(\d+) events read, (\d+) matched, (\d+) dropped(?: in the kernel)?, "
    r"(\d+) malformed")
RE_OUTPUT = re.compile(
    r"^agent: output (\S+): (\d+) emitted, (\d+) dropped \(queue full (\d+), output error (\d+), "
    r"exit deadline (\d+)\), (\d+) markers, (\d+) write errors, (\d+) connect failures"
    r"(?:, (\d+) queued)?$")
OUT_KEYS = ("emitted", "dropped", "queue_full", "output_error", "exit_deadline",
            "markers", "write_errors", "connect_failures", "queued")


def reports(path):
    """Every report on stderr (SIGUSR1 counters and the final summary), in order:
    dicts with read, matched, kdrops, malformed, now (True for a SIGUSR1 dump)
    and outputs {url: {emitted, dropped, queue_full, ..., queued}}."""
    reps = []
    now = False	# "agent: counters now:" alone on a line announces a SIGUSR1 report
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line.strip() == "agent: counters now:":
            now = True
            continue
        m = RE_TOTALS.match(line)
        if m:
            reps.append({"read": int(m[1]), "matched": int(m[2]), "kdrops": int(m[3]),
                         "malformed": int(m[4]), "now": now or "counters now:" in line,
                         "outputs": {}})
            now = False
            continue
        m = RE_OUTPUT.match(line)
        if m and reps:
            reps[-1]["outputs"][m[1]] = dict(zip(OUT_KEYS, (int(x or 0) for x in m.groups()[1:])))
    return reps


def summary(path):
    """The final summary (the last report); AssertionError when there is none."""
    reps = [r for r in reports(path) if not r["now"]]
    assert reps, "no summary in %s:\n%s" % (path, open(path, errors="replace").read()[-3000:])
    return reps[-1]


def output(summ, url):
    assert url in summ["outputs"], ("no 'agent: output %s:' line; outputs seen" % url,
                                    list(summ["outputs"]))
    return summ["outputs"][url]


def read_lines(path, allow_partial_tail=False):
    """The lines of PATH (bytes, without '\\n'). Every line must end in a newline
    unless allow_partial_tail (then an unterminated tail is returned separately)."""
    data = open(path, "rb").read()
    tail = b""
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        tail = data[cut:]
        data = data[:cut]
        assert allow_partial_tail, "%s ends in a cut line: %r" % (path, tail[-200:])
    lines = data.split(b"\n")[:-1] if data else []
    return (lines, tail) if allow_partial_tail else lines


def parse_json_lines(lines, what):
    """json.loads of each line; AssertionError naming the first bad one."""
    objs = []
    for i, l in enumerate(lines):
        try:
            objs.append(json.loads(l))
        except ValueError as e:
            raise AssertionError("%s line %d is not JSON (%s): %r" % (what, i + 1, e, l[:300]))
    return objs


def is_marker(obj):
    return isinstance(obj, dict) and "agent.drop" in obj


def split_markers(lines, what):
    """(event lines, marker objects) of a JSON stream."""
    objs = parse_json_lines(lines, what)
    events = [l for l, o in zip(lines, objs) if not is_marker(o)]
    markers = [o["agent.drop"] for o in objs if is_marker(o)]
    return events, markers


def check_count(summ, url, n, what):
    o = output(summ, url)
    assert o["emitted"] == n, "%s: %d lines arrived, the summary says %d emitted (%s)" % (
        what, n, o["emitted"], o)
    return o


def check_accounted(summ, url):
    """Every matched event is emitted or dropped (for a reason) by each output."""
    o = output(summ, url)
    assert o["emitted"] + o["dropped"] == summ["matched"], (
        "%s: %d emitted + %d dropped != %d matched" % (url, o["emitted"], o["dropped"],
                                                       summ["matched"]), o)
    assert o["dropped"] == o["queue_full"] + o["output_error"] + o["exit_deadline"], (url, o)
    return o


RE_TEXT_MARKER = re.compile(rb"^agent: (\d+) events dropped for this output \(queue full\)$")


def walk_markers(stream, ref, url, text=False):
    """STREAM: the lines an output delivered (events and markers); REF: every matched
    line (a lossless stdout). The events must be REF's lines in order, none twice,
    and each gap in them must be announced, right before the next event, by markers
    whose counts add up to the gap. Returns (events, markers, marker count sum,
    lines of REF after the last delivered event, marker counts not followed by an event)."""
    pos = {l: i for i, l in enumerate(ref)}
    assert len(pos) == len(ref), "reference lines are not unique"
    idx = pending = nmark = total = nev = 0
    for k, l in enumerate(stream):
        if text:	# text mode (no -j): marker lines in words
            m = RE_TEXT_MARKER.match(l)
            count = int(m[1]) if m else None
            assert m or not l.startswith(b"agent:"), ("bad marker", l)
        else:
            try:
                o = json.loads(l)
            except ValueError:
                raise AssertionError("line %d is not JSON: %r" % (k + 1, l[:300]))
            count = None
            if is_marker(o):
                d = o["agent.drop"]
                assert d.get("output") == url and d.get("reason") == "queue full" and \
                    isinstance(d.get("count"), int), ("bad marker", l)
                count = d["count"]
        if count is not None:
            assert count > 0, ("marker with no drops", l)
            pending += count
            nmark += 1
            total += count
            continue
        assert l in pos, ("line %d is not one of the agent's stdout lines" % (k + 1), l[:300])
        j = pos[l]
        assert j >= idx, ("line %d out of order or duplicated" % (k + 1), l[:300])
        assert j - idx == pending, ("before line %d, %d lines are missing but markers announced %d"
                                    % (k + 1, j - idx, pending))
        pending = 0
        idx = j + 1
        nev += 1
    return nev, nmark, total, len(ref) - idx, pending
