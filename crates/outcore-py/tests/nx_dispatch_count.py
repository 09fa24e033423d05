"""A pytest plugin for networkx's test suite run with
NETWORKX_TEST_BACKEND=outcore: counts the calls networkx dispatched to
outcore (by function) and the ones outcore declined (networkx ran them),
and prints both at the end, so the pass count says how much of it outcore
answered.  Fails the session when outcore answered no call at all (the
backend was not installed or not found)."""

import collections
import logging
import re

_USED = collections.Counter()
_DECLINED = collections.Counter()
_USING = re.compile(r"Using backend 'outcore' for call to '([^']+)'")
_CANT = re.compile(r"Backend 'outcore' can't run `([^`]+)`")


class _Count(logging.Handler):
    def emit(self, record):
        msg = record.getMessage()
        m = _USING.search(msg)
        if m:
            _USED[m.group(1)] += 1
            return
        m = _CANT.search(msg)
        if m:
            _DECLINED[m.group(1)] += 1


def pytest_configure(config):
    log = logging.getLogger("networkx.utils.backends")
    log.setLevel(logging.DEBUG)
    log.addHandler(_Count())
    log.propagate = False


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    tr = terminalreporter
    tr.section("outcore backend")
    tr.write_line(f"calls run by outcore: {sum(_USED.values())}; declined by can_run (networkx ran them): {sum(_DECLINED.values())}")
    for name in sorted(set(_USED) | set(_DECLINED)):
        tr.write_line(f"  {name}: {_USED[name]} run, {_DECLINED[name]} declined")


def pytest_sessionfinish(session, exitstatus):
    if not _USED and exitstatus == 0:
        session.exitstatus = 1
        print("\nno call reached the outcore backend: is the package installed (pip install ./crates/outcore-py)?")
