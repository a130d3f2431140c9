// Compile wheels with Pyodide's own Python (coursebuild/lite/bytecode.py, compile_wheels).
// node pyodide_compile.mjs <npm pyodide folder> <repository root> <jobs.json>
// jobs.json: [{src, dst, keep_source}]; writes each dst wheel and dst with .json: {"compiled": n}.
import { pathToFileURL } from "node:url";
import fs from "node:fs";

const [pyodideDir, root, jobsFile] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(`${pyodideDir}/pyodide.mjs`).href);
const pyodide = await loadPyodide({ indexURL: `${pyodideDir}/`, stdout: console.log, stderr: console.error });
pyodide.FS.mkdirTree("/host");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: "/" }, "/host");
pyodide.globals.set("ROOT", `/host${root}`);
pyodide.globals.set("JOBS", JSON.stringify(JSON.parse(fs.readFileSync(jobsFile, "utf8"))
  .map(job => ({ ...job, src: `/host${job.src}`, dst: `/host${job.dst}` }))));
pyodide.runPython(`
import json, sys
sys.path.insert(0, ROOT)
from coursebuild.lite.bytecode import add_bytecode
for job in json.loads(JOBS):
    n = add_bytecode(job["src"], job["dst"], keep_source=job["keep_source"])
    with open(job["dst"][:-len(".whl")] + ".json", "w") as f:
        json.dump({"compiled": n}, f)
    print(f"[build_lite] {n:4d} modules compiled by Pyodide's Python {sys.version.split()[0]}: {job['dst'].rsplit('/', 1)[-1]}")
`);
