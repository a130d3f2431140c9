// The private loadPyodide options the fast start uses (Pyodide 314.0.6 declares them "@ignore" in pyodide.d.ts):
// the only file that names them. coursebuild/lite/fast_start/__init__.py lists them (PRIVATE_PYODIDE_OPTIONS) and
// tests/test_lite_fast_start.py fails, naming the option, when the vendored Pyodide no longer declares one.
// pyodide_snapshot.mjs makes the snapshot with the first; kernel_boot.mjs (served beside this file) restores it.

/** loadPyodide's options for a runtime whose memory is then snapshot (sys.executable as the browser's worker has it). */
export function makeSnapshotOptions(sysExecutable) {
  return { _makeSnapshot: true, _sysExecutable: sysExecutable };
}

/** loadPyodide's options that restore a memory snapshot (its bytes, or a promise of them). */
export function loadSnapshotOptions(snapshot) {
  return { _loadSnapshot: snapshot };
}
