#!/usr/bin/env python3
"""Prints the PyPI requirements of the Home Assistant integrations a test run loads.

Run with the venv's Python (homeassistant importable). It walks each integration's manifest,
`dependencies` and `after_dependencies` (HA installs the requirements of both before it loads an
integration, even those of an after_dependency that is never set up: the owntracks flow pulls in
cloud, then google_assistant, then matter's python-matter-server), from the integrations HA
always sets up (bootstrap's core and default sets, the frontend, and isal, which http wants) and
those the test's configuration names, adds the auth's multi-factor modules' (the core's), and prints every `requirements` line once. They are
installed with HA's own package_constraints.txt, so HA has nothing to install when it starts.
"""
import json
import pathlib
import sys

import homeassistant.auth.mfa_modules.notify as notify
import homeassistant.auth.mfa_modules.totp as totp
import homeassistant.bootstrap as bootstrap
import homeassistant.components as components

ROOT = pathlib.Path(components.__file__).parent


def manifest(domain):
    path = ROOT / domain / "manifest.json"
    return json.loads(path.read_text()) if path.exists() else None


def closure(start):
    seen, todo = set(), list(start)
    while todo:
        domain = todo.pop()
        if domain in seen or manifest(domain) is None:
            continue
        seen.add(domain)
        todo.extend(manifest(domain).get("dependencies", []))
        todo.extend(manifest(domain).get("after_dependencies", []))
    return seen


def main():
    configured = sys.argv[1:]
    start = set(configured) | bootstrap.CORE_INTEGRATIONS | bootstrap.DEFAULT_INTEGRATIONS
    start |= bootstrap.FRONTEND_INTEGRATIONS | {"isal", "logger", "network", "system_log"}
    loaded = closure(start)
    reqs = {r for d in loaded for r in manifest(d).get("requirements", [])}
    # The auth's multi-factor modules, which HA's core loads at start (PyQRCode, pyotp).
    reqs |= set(totp.REQUIREMENTS) | set(notify.REQUIREMENTS)
    reqs = sorted(reqs)
    print("\n".join(reqs))
    print(f"# {len(loaded)} integrations: {' '.join(sorted(loaded))}", file=sys.stderr)


if __name__ == "__main__":
    main()
