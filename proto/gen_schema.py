#!/usr/bin/env python3
"""Generate the C views of the event schema from the .def tables in proto/.

Outputs (into OUTDIR):
  schema_events.h    event codes and parameter counts (usable from BPF and userspace)
  schema_flags.h     the numeric values of every flagset entry (PPM_* wire values)
  schema_syscalls.h  the x86_64 syscall routing table as an initializer macro
  schema_table.c     userspace tables: events, params, flagsets, syscall names
  schema_bare.bpf.c  the driver's fillers of events without params (header only)
"""
import sys
import os

CATEGORIES = {
    'unknown': 0, 'other': 1, 'file': 2, 'net': 3, 'ipc': 4, 'memory': 5,
    'process': 6, 'sleep': 7, 'system': 8, 'signal': 9, 'user': 10, 'time': 11,
    'processing': 12, 'io_read': 32, 'io_write': 33, 'io_other': 34, 'wait': 64,
    'scheduler': 128, 'internal': 256,
}


def fail(path, lineno, msg):
    sys.exit('%s:%d: %s' % (path, lineno, msg))


def lines(path):
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.split('#', 1)[0].rstrip()
            if line.strip():
                yield n, line


def parse_events(path):
    events, flagsets, dyntypes = {}, {}, {}
    cur = None
    for n, line in lines(path):
        f = line.split()
        if not line.startswith(' '):
            kind = f[0]
            if kind == 'event':
                code = int(f[1])
                if code in events:
                    fail(path, n, 'duplicate event code %d' % code)
                if f[4] not in CATEGORIES:
                    fail(path, n, 'unknown category ' + f[4])
                cur = {'code': code, 'id': f[2], 'name': f[3], 'cat': f[4],
                       'flags': f[5], 'params': []}
                events[code] = cur
            elif kind == 'flagset':
                cur = flagsets.setdefault(f[1], [])
            elif kind == 'dyntype':
                cur = dyntypes.setdefault(f[1], [])
            else:
                fail(path, n, 'unknown block ' + kind)
        elif f[0] == 'param':
            cur['params'].append({'name': f[1], 'type': f[2], 'fmt': f[3],
                                  'info': f[4] if len(f) > 4 else None})
        elif isinstance(cur, list) and len(f) == 2:
            cur.append((f[0], int(f[1])))
        elif isinstance(cur, list) and len(f) == 3:
            cur.append((f[0], f[1], f[2]))
        else:
            fail(path, n, 'cannot parse: ' + line)
    codes = sorted(events)
    if codes != list(range(len(codes))):
        sys.exit('%s: event codes must be dense from 0' % path)
    return [events[c] for c in codes], flagsets, dyntypes


def parse_syscalls(path, ids):
    rows = []
    for n, line in lines(path):
        f = line.split()
        if len(f) != 6:
            fail(path, n, 'expected 6 columns')
        for i in (3, 4):
            if f[i] not in ids:
                fail(path, n, 'unknown event id ' + f[i])
        rows.append({'nr': int(f[0]), 'name': f[1], 'sc': int(f[2]),
                     'enter': f[3], 'exit': f[4], 'flags': f[5]})
    return rows


def parse_ppm_sc(path):
    return [(int(f[0]), f[1], f[2], f[3]) for _, l in lines(path) for f in [l.split()]]


# Exit-only capture: calls whose enter event is not built at their exit, so it
# cannot be left out there (dispatch.bpf.c, eo__enter_here; sched.bpf.c).
EO_ENTER_ELSEWHERE = {'clone', 'fork', 'vfork', 'clone3', 'execve', 'execveat', 'exit',
                      'exit_group'}


def eo_synth(rows, events):
    """Exit-only capture leaves out an enter event that userspace can rebuild
    from its exit event alone: a generic pair whose PPM_SC code names one call
    (the nativeID param then follows from the ID param), or an enter event
    without params that every call with that exit event shares. Returns the
    routes (by native number) that leave it out, the exit events whose enter
    is rebuilt from the type alone, and the native number of each PPM_SC code
    rebuilt as a generic pair."""
    by_id = {e['id']: e for e in events}
    sc_rows = {}
    exit_rows = {}
    for r in rows:
        sc_rows.setdefault(r['sc'], []).append(r)
        exit_rows.setdefault(r['exit'], []).append(r)
    bare = set()
    for x, rs in exit_rows.items():
        if x == 'GENERIC_X':
            continue
        ok = all(r['name'] not in EO_ENTER_ELSEWHERE and r['enter'] == rs[0]['enter'] and
                 not by_id[r['enter']]['params'] and
                 by_id[r['enter']]['code'] + 1 == by_id[x]['code'] for r in rs)
        if ok:
            bare.add(x)
    sc_nr = {}
    for sc, rs in sc_rows.items():
        r = rs[0]
        if (sc and len(rs) == 1 and r['enter'] == 'GENERIC_E' and r['exit'] == 'GENERIC_X' and
                r['name'] not in EO_ENTER_ELSEWHERE):
            sc_nr[sc] = r['nr']
    routes = {r['nr'] for r in rows if r['exit'] in bare or sc_nr.get(r['sc']) == r['nr']}
    return routes, bare, sc_nr


# Events without params whose driver filler does more than send the header:
# clone3's enter filler saves the call's flags for its exit events
# (driver/fillers/procnet/pn_clone.bpf.c). Written by hand, not generated.
BARE_BY_HAND = {'SYSCALL_CLONE3_E'}


def bare_events(rows, events):
    """The events without params that a syscall is routed to, in code order:
    the driver sends their header alone, from a generated filler each."""
    routed = {r['enter'] for r in rows} | {r['exit'] for r in rows}
    return [e for e in events if not e['params'] and e['id'] in routed and
            e['id'] not in ('GENERIC_E', 'GENERIC_X') and e['id'] not in BARE_BY_HAND]


def c_flags(spec, prefix):
    if spec == 'NONE':
        return '0'
    return '|'.join(prefix + s for s in spec.split(','))


def cstr(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def write_events_h(out, events, sc_max):
    w = out.write
    w('/* Generated by proto/gen_schema.py from proto/events.def. Do not edit. */\n')
    w('#ifndef SCHEMA_EVENTS_H\n#define SCHEMA_EVENTS_H\n\n')
    w('enum ppm_event_code {\n')
    for e in events:
        w('\tPPME_%s = %d,\n' % (e['id'], e['code']))
    w('\tPPM_EVENT_MAX = %d,\n};\n\n' % len(events))
    for e in events:
        w('#define PPME_%s_NPARAMS %d\n' % (e['id'], len(e['params'])))
    w('\n#define PPM_MAX_EVENT_PARAMS %d\n' % max(len(e['params']) for e in events))
    w('#define PPM_SC_MAX %d\n' % sc_max)
    w('\n#endif\n')


def write_flags_h(out, flagsets):
    w = out.write
    w('/* Generated by proto/gen_schema.py from proto/events.def. Do not edit. */\n')
    w('#ifndef SCHEMA_FLAGS_H\n#define SCHEMA_FLAGS_H\n\n')
    for name, entries in flagsets.items():
        for ident, val in entries:
            w('#define PPM_%s_%s %uU\n' % (name.upper(), ident, val))
        w('\n')
    w('#endif\n')


def write_syscalls_h(out, rows, eo):
    w = out.write
    w('/* Generated by proto/gen_schema.py from proto/syscalls_x86_64.def. Do not edit. */\n')
    w('#ifndef SCHEMA_SYSCALLS_H\n#define SCHEMA_SYSCALLS_H\n\n')
    w('#define SYSCALL_TABLE_SIZE 512\n\n')
    w('/* Initializer of an array of struct syscall_route indexed by native number. */\n')
    w('#define SCHEMA_SYSCALL_ROUTES { \\\n')
    for r in rows:
        flags = c_flags(r['flags'], 'UF_')
        if r['nr'] in eo[0]:
            flags = 'UF_EO_SYNTH' if flags == '0' else flags + '|UF_EO_SYNTH'
        w('\t[%d] = { PPME_%s, PPME_%s, %d, %s }, \\\n' %
          (r['nr'], r['enter'], r['exit'], r['sc'], flags))
    w('}\n\n')
    w('/* Exit-only capture: whether exit event T (a constant) goes without its\n')
    w(' * enter event, which has no params (userspace rebuilds it). */\n')
    w('#define PPME_EO_SYNTH_BARE(t) (0')
    for x in sorted(eo[1]):
        w(' || \\\n\t(t) == PPME_%s' % x)
    w(')\n\n#endif\n')


def write_table_c(out, events, flagsets, dyntypes, rows, ppm_sc, eo):
    w = out.write
    w('/* Generated by proto/gen_schema.py from the proto tables. Do not edit. */\n')
    w('#include "schema.h"\n\n')
    for name, entries in flagsets.items():
        w('static const struct ppm_name_value fs_%s[] = {\n' % name)
        for ident, val in entries:
            w('\t{ %s, %uU },\n' % (cstr(ident), val))
        w('\t{ 0, 0 },\n};\n')
    for name, entries in dyntypes.items():
        w('static const struct ppm_param_info dyn_%s[] = {\n' % name)
        for pname, ptype, pfmt in entries:
            w('\t{ %s, PT_%s, PF_%s, 0, 0, 0, false },\n' % (cstr(pname if pname != '-' else ''), ptype, pfmt))
        w('};\n')
    w('\nconst struct ppm_event_info schema_events[PPM_EVENT_MAX] = {\n')
    for e in events:
        w('\t[%d] = { %s, EC_%s, %s, %d, {\n' %
          (e['code'], cstr(e['name']), e['cat'].upper(), c_flags(e['flags'], 'EF_'), len(e['params'])))
        for p in e['params']:
            info, ninfo, dirfd, host = '0', 0, -1, 'false'
            if p['info'] in flagsets:
                info = 'fs_' + p['info']
            elif p['info'] in dyntypes:
                info = 'dyn_' + p['info']
                ninfo = len(dyntypes[p['info']])
            elif p['info'] == 'host' and p['type'] == 'PID':
                host = 'true'
            elif p['info'] is not None:
                dirfd = int(p['info'])
            w('\t\t{ %s, PT_%s, PF_%s, %s, %d, %d, %s },\n' %
              (cstr(p['name']), p['type'], p['fmt'], info, ninfo, dirfd, host))
        w('\t} },\n')
    w('};\n\n')
    w('const char *const schema_event_ids[PPM_EVENT_MAX] = {\n')
    for e in events:
        w('\t%s,\n' % cstr(e['id']))
    w('};\n\n')
    w('const struct syscall_route schema_syscall_routes[SYSCALL_TABLE_SIZE] = SCHEMA_SYSCALL_ROUTES;\n\n')
    w('const uint8_t schema_eo_synth[PPM_EVENT_MAX] = {\n')
    for x in sorted(eo[1]):
        w('\t[PPME_%s] = SCHEMA_EO_BARE,\n' % x)
    w('\t[PPME_GENERIC_X] = SCHEMA_EO_GENERIC,\n};\n\n')
    w('const int16_t schema_eo_sc_nr[PPM_SC_MAX] = {\n')
    for sc in range(max(c for c, *_ in ppm_sc) + 1):
        w('\t[%d] = %d,\n' % (sc, eo[2].get(sc, -1)))
    w('};\n\n')
    w('const char *const schema_syscall_names[SYSCALL_TABLE_SIZE] = {\n')
    for r in rows:
        w('\t[%d] = %s,\n' % (r['nr'], cstr(r['name'])))
    w('};\n\n')
    w('const struct ppm_sc_info schema_ppm_sc[PPM_SC_MAX] = {\n')
    for code, name, cat, flags in ppm_sc:
        w('\t[%d] = { %s, EC_%s, %s },\n' % (code, cstr(name), cat.upper(), c_flags(flags, 'EF_')))
    w('};\n')
    w('\nconst struct ppm_flagset_ref schema_flagsets[] = {\n')
    for name in flagsets:
        w('\t{ %s, fs_%s },\n' % (cstr(name), name))
    w('\t{ 0, 0 },\n};\n')


def write_bare_bpf_c(out, bare):
    w = out.write
    w('/* Generated by proto/gen_schema.py from proto/events.def. Do not edit. */\n')
    w('/* The fillers of the events without params: the header alone says which call\n')
    w(' * it was, and times it. Program names are the event ids in lower case (the\n')
    w(' * loader finds them so); even codes are enter events, odd ones exit events. */\n')
    w('#include "frame.bpf.h"\n\n')
    for e in bare:
        kind = 'FILLER_EXIT' if e['code'] % 2 else 'FILLER'
        w('%s(%s)\n{\n\treturn filler__no_params(ctx, PPME_%s);\n}\n\n' %
          (kind, e['id'].lower(), e['id']))


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: gen_schema.py PROTO_DIR OUTDIR')
    src, outdir = sys.argv[1], sys.argv[2]
    events, flagsets, dyntypes = parse_events(os.path.join(src, 'events.def'))
    ids = {e['id'] for e in events}
    rows = parse_syscalls(os.path.join(src, 'syscalls_x86_64.def'), ids)
    ppm_sc = parse_ppm_sc(os.path.join(src, 'ppm_sc.def'))
    eo = eo_synth(rows, events)
    with open(os.path.join(outdir, 'schema_events.h'), 'w') as f:
        write_events_h(f, events, max(c for c, *_ in ppm_sc) + 1)
    with open(os.path.join(outdir, 'schema_flags.h'), 'w') as f:
        write_flags_h(f, flagsets)
    with open(os.path.join(outdir, 'schema_syscalls.h'), 'w') as f:
        write_syscalls_h(f, rows, eo)
    with open(os.path.join(outdir, 'schema_table.c'), 'w') as f:
        write_table_c(f, events, flagsets, dyntypes, rows, ppm_sc, eo)
    with open(os.path.join(outdir, 'schema_bare.bpf.c'), 'w') as f:
        write_bare_bpf_c(f, bare_events(rows, events))


if __name__ == '__main__':
    main()
