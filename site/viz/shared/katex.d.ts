// Formulas imported with ?katex are KaTeX HTML strings rendered at build time (katex-prerender.ts).
declare module '*.tex?katex' {
  const html: string;
  export default html;
}
