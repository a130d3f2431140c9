// One line naming a build script's error, for the last line of its stderr (coursebuild/lite/fast_start/node.py reads it).
// A Python exception's message can span lines (Pyodide's "not installed" one ends with a link): the line kept is
// the last one of the traceback that starts with an exception's name. Anything else: its name and message.
export function errorLine(error) {
  if (error.type) {
    const named = String(error.message).split("\n").filter((line) => /^[A-Za-z_][\w.]*(Error|Exception|Exit)\b/.test(line));
    if (named.length) return named[named.length - 1];
  }
  return `${error.name}: ${String(error.message).trim().split("\n")[0]}`;
}
