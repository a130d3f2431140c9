// Typeset TeX to SVG at build time with the site's MathJax 3 (coursebuild/math_svg.py):
// node mathjax_svg.js <mathjax es5 folder>   reads [{"tex": ..., "display": bool}, ...] on stdin and writes
// {"css": <the SVG output's stylesheet>, "html": [<mjx-container>..., ...]} on stdout. Each formula keeps a hidden
// MathML copy (assistive-mml) that a screen reader reads; the SVG draws in currentColor, so dark pages work.
const folder = process.argv[2];
const MathJaxInit = require(`${folder}/node-main.js`);
let input = "";
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const formulas = JSON.parse(input);
  MathJaxInit.init({ loader: { load: ["input/tex", "output/svg", "a11y/assistive-mml"] },
                     svg: { fontCache: "none" }, startup: { typeset: false } }).then((MathJax) => {
    const adaptor = MathJax.startup.adaptor;
    const html = formulas.map((f) => adaptor.outerHTML(MathJax.tex2svg(f.tex, { display: !!f.display })));
    const css = adaptor.textContent(MathJax.svgStylesheet());
    process.stdout.write(JSON.stringify({ css, html }));
  }).catch((error) => { console.error(error); process.exit(1); });
});
