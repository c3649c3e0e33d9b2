#!/usr/bin/env python3
"""Fails on an include that runs back up a floor (tests/layering/floors.txt).

  check_floors.py ROOT            check the tree at ROOT against ROOT/tests/layering/floors.txt
  check_floors.py --self-test     check that a back-up include and an undeclared folder are found
"""
import os
import re
import subprocess
import sys
import tempfile

SOURCE = re.compile(r'\.(cc|h|def)$')
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SPLIT = ('compiler', 'oracle', 'backends', 'interop')


def unit_of(path):
    parts = path.split('/')
    if parts[0] in SPLIT and len(parts) > 2:
        return parts[0] + '/' + parts[1]
    return parts[0]


def read_floors(path):
    floors = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            text = line.split('#', 1)[0].split()
            if not text:
                continue
            if not text[0].isdigit() or len(text) < 2:
                sys.exit(f'{path}:{number}: expected "FLOOR UNIT [UNIT ...]"')
            for unit in text[1:]:
                if unit in floors:
                    sys.exit(f'{path}:{number}: {unit} stands on floor {floors[unit]} already')
                floors[unit] = int(text[0])
    return floors


def sources(root):
    out = subprocess.run(['git', '-C', root, 'ls-files', '--cached', '--others', '--exclude-standard'],
                         capture_output=True, text=True, check=True).stdout.split()
    return [f for f in out if SOURCE.search(f) and not f.startswith('tests/') and '/' in f]


def problems(root):
    floors = read_floors(os.path.join(root, 'tests/layering/floors.txt'))
    found = []
    for f in sorted(sources(root)):
        unit = unit_of(f)
        if unit not in floors:
            found.append(f'{f}: its folder {unit} stands on no floor of tests/layering/floors.txt')
            continue
        with open(os.path.join(root, f), errors='replace') as text:
            body = text.read()
        for match in INCLUDE.finditer(body):
            target = match.group(1)
            if not os.path.exists(os.path.join(root, target)):
                continue  # a system or generated header
            other = unit_of(target)
            if other == unit or other not in floors:
                continue
            if floors[other] >= floors[unit]:
                line = body.count('\n', 0, match.start()) + 1
                where = 'up' if floors[other] > floors[unit] else 'across'
                found.append(f'{f}:{line}: includes {target}, {where} from {unit} (floor {floors[unit]}) '
                             f'to {other} (floor {floors[other]})')
    return found


def self_test():
    with tempfile.TemporaryDirectory() as root:
        def write(path, text):
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), 'w') as f:
                f.write(text)
        write('tests/layering/floors.txt', '1 compiler/low\n2 compiler/high compiler/side\n')
        write('compiler/low/a.h', '#include "compiler/high/b.h"\n')
        write('compiler/high/b.h', '#include "compiler/low/a.h"\n#include <vector>\n')
        write('compiler/high/c.cc', '#include "compiler/side/d.h"\n')
        write('compiler/side/d.h', '\n')
        write('compiler/nowhere/e.cc', '\n')
        subprocess.run(['git', 'init', '-q', root], check=True)
        got = problems(root)
    want = ['compiler/high/c.cc:1: includes compiler/side/d.h, across from compiler/high (floor 2) to compiler/side (floor 2)',
            'compiler/low/a.h:1: includes compiler/high/b.h, up from compiler/low (floor 1) to compiler/high (floor 2)',
            'compiler/nowhere/e.cc: its folder compiler/nowhere stands on no floor of tests/layering/floors.txt']
    if got != want:
        print('self-test: expected\n  ' + '\n  '.join(want) + '\ngot\n  ' + '\n  '.join(got))
        return 1
    print('self-test: ok')
    return 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    found = problems(sys.argv[1])
    for p in found:
        print(p)
    print(f'{len(found)} include(s) off their floors' if found else 'every include stands on its floor')
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
