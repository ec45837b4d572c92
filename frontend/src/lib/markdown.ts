// Markdown as the screens show it: answers, assistant instructions, notes.
//
// Text from a model, a file or a cell is hostile until shown otherwise, so
// it goes through three walls before it reaches the page:
//  1. markdown-it with html: false — raw HTML in the text is shown as text,
//     never parsed as markup; its link check refuses javascript:, vbscript:,
//     file: and data: links;
//  2. DOMPurify over the rendered HTML — no <script>, <style>, event
//     handlers, forms or frames survive; links keep only http(s), mailto and
//     #fragments; style attributes survive only inside KaTeX's own output
//     and only with the few layout properties KaTeX writes;
//  3. the .md container paints its contents inside its own box
//     (contain: paint, in app.css), so nothing can be positioned over the UI.
// Images in Markdown are shown as their alt text: an answer must not make the
// window fetch anything (a remote image is a tracking pixel on an air-gapped
// machine). Plots come through the sandbox's channel, not through Markdown.
import MarkdownIt from 'markdown-it';
import katexModule from '@vscode/markdown-it-katex';
import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import python from 'highlight.js/lib/languages/python';
import bash from 'highlight.js/lib/languages/bash';
import json from 'highlight.js/lib/languages/json';
import javascript from 'highlight.js/lib/languages/javascript';
import typescript from 'highlight.js/lib/languages/typescript';
import sql from 'highlight.js/lib/languages/sql';
import yaml from 'highlight.js/lib/languages/yaml';
import go from 'highlight.js/lib/languages/go';
import r from 'highlight.js/lib/languages/r';
import xml from 'highlight.js/lib/languages/xml';
import css from 'highlight.js/lib/languages/css';
import plaintext from 'highlight.js/lib/languages/plaintext';
import type { llm } from './gen/api.gen';

for (const [name, lang] of Object.entries({ python, bash, json, javascript, typescript, sql, yaml, go, r, xml, css, plaintext })) {
  hljs.registerLanguage(name, lang);
}
hljs.registerAliases(['py', 'python3', 'ipython'], { languageName: 'python' });
hljs.registerAliases(['sh', 'shell', 'console', 'zsh'], { languageName: 'bash' });
hljs.registerAliases(['js'], { languageName: 'javascript' });
hljs.registerAliases(['ts'], { languageName: 'typescript' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });
hljs.registerAliases(['text', 'txt', 'csv'], { languageName: 'plaintext' });

/**
 * A source an answer cites as [n]: the contract of knowledge retrieval; a
 * page browsing read has its address (https://… or zim://LIBRARY/PATH) and title.
 */
export type Citation = llm.Citation;

type MD = InstanceType<typeof MarkdownIt>;
// The plugin is CommonJS (exports.default): the bundler hands over either
// the function or the module object that holds it.
const katexPlugin = ((katexModule as unknown as { default?: typeof katexModule }).default ?? katexModule) as typeof katexModule;
type StateCore = Parameters<Parameters<MD['core']['ruler']['push']>[1]>[0];
type Token = StateCore['tokens'][number];

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Code, highlighted when its language is known (or guessed for python-like text). */
export function highlight(code: string, lang: string): string {
  const l = lang.trim().split(/\s+/)[0].toLowerCase();
  if (l && hljs.getLanguage(l)) return hljs.highlight(code, { language: l, ignoreIllegals: true }).value;
  return esc(code);
}

/** The languages of a block the Ask screen offers to run (those rehome runs: llm.pythonInfo). */
const runnableLangs = new Set(['python', 'py', 'python3', 'ipython']);

function makeRenderer(): MD {
  const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });
  // The plugin hands its options to KaTeX: trust: false refuses \href,
  // \url, \includegraphics, \htmlClass… (TeX makes no links, images or
  // classes); sizes and macro expansion are bounded.
  const katexOptions = { throwOnError: false, trust: false, maxSize: 20, maxExpand: 500, strict: 'ignore', output: 'htmlAndMathml' };
  md.use(katexPlugin, katexOptions as { throwOnError: boolean });
  md.renderer.rules.fence = (tokens, idx, _options, env) => {
    const t = tokens[idx];
    const lang = (t.info || '').trim().split(/\s+/)[0];
    const label = lang ? `<span class="lang">${esc(lang)}</span>` : '';
    // A python block of an answer may be run, when the user clicks Run.
    const run = (env as { runnable?: boolean })?.runnable && runnableLangs.has(lang.toLowerCase())
      ? `<button type="button" class="run" data-run="python" title="Run this code in the conversation's sandbox session (its files at /mnt/data, the saved limits)">Run</button>`
      : '';
    return (
      `<div class="codeblock">` +
      `<div class="codebar">${label}${run}<button type="button" class="copy" data-copy="code" title="Copy the code">Copy</button></div>` +
      `<pre><code class="hljs${lang ? ' language-' + esc(lang) : ''}">${highlight(t.content, lang)}</code></pre></div>\n`
    );
  };
  md.renderer.rules.code_block = (tokens, idx) =>
    `<div class="codeblock"><div class="codebar"><button type="button" class="copy" data-copy="code" title="Copy the code">Copy</button></div><pre><code class="hljs">${esc(tokens[idx].content)}</code></pre></div>\n`;
  md.renderer.rules.image = (tokens, idx) => {
    const t = tokens[idx];
    const alt = t.children?.map((c) => c.content).join('') || t.content || 'image';
    return `<span class="img-alt" title="An image the text points at (not loaded)">[image: ${esc(alt)}]</span>`;
  };
  md.core.ruler.push('citations', citationRule);
  return md;
}

// Splits "[n]" in text into cite tokens when env.citations holds n.
function citationRule(state: StateCore): void {
  const cites = (state.env as { citations?: Map<number, Citation> } | undefined)?.citations;
  if (!cites?.size) return;
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const out: Token[] = [];
    let inLink = 0;
    for (const tok of block.children) {
      if (tok.type === 'link_open') inLink++;
      if (tok.type === 'link_close') inLink--;
      if (tok.type !== 'text' || inLink > 0 || !/\[\d+\]/.test(tok.content)) {
        out.push(tok);
        continue;
      }
      const re = /\[(\d+)\]/g;
      let last = 0;
      let m: RegExpExecArray | null;
      while ((m = re.exec(tok.content))) {
        const n = Number(m[1]);
        if (!cites.has(n)) continue;
        if (m.index > last) out.push(textToken(state, tok.content.slice(last, m.index)));
        const c = new state.Token('cite', '', 0);
        c.meta = { n };
        out.push(c);
        last = m.index + m[0].length;
      }
      if (last < tok.content.length) out.push(textToken(state, tok.content.slice(last)));
    }
    block.children = out;
  }
}

function textToken(state: StateCore, s: string): Token {
  const t = new state.Token('text', '', 0);
  t.content = s;
  return t;
}

const md = makeRenderer();
md.renderer.rules.cite = (tokens, idx, _o, env) => {
  const n = (tokens[idx].meta as { n: number }).n;
  const c = (env as { citations: Map<number, Citation> }).citations.get(n)!;
  return `<button type="button" class="cite" data-cite="${n}" title="${esc(citeLabel(c))}">${n}</button>`;
};

/** Where a citation points, in a few words: "report.pdf, pages 3–4, §2.1". */
export function citeLabel(c: Citation): string {
  const parts = [c.file];
  if (c.page && c.page_end && c.page_end !== c.page) parts.push(`pages ${c.page}–${c.page_end}`);
  else if (c.page) parts.push(`page ${c.page}`);
  if (c.section) parts.push(c.section);
  return parts.join(', ');
}

// Turns text TeX delimiters \( \) and \[ \] (what many models write) into
// the $ forms the math plugin reads, outside code.
export function normalizeMath(src: string): string {
  const parts = src.split(/(```[\s\S]*?(?:```|$)|`[^`\n]*`)/g);
  return parts
    .map((p, i) => {
      if (i % 2 === 1) return p;
      return p
        .replace(/\\\[([\s\S]+?)\\\]/g, (_m, x: string) => `$$${x}$$`)
        .replace(/\\\(([\s\S]+?)\\\)/g, (_m, x: string) => `$${x.trim()}$`);
    })
    .join('');
}

// Only what KaTeX writes in a style attribute, with plain values.
const katexStyleProps = new Set([
  'height', 'width', 'min-width', 'max-width', 'vertical-align', 'top', 'bottom',
  'margin-left', 'margin-right', 'margin-top', 'margin-bottom', 'padding-left', 'padding-right',
  'border-bottom-width', 'border-top-width', 'border-right-width', 'border-left-width', 'border-width',
  'border-style', 'border-color', 'color', 'background-color', 'font-size', 'line-height',
]);
const plainValue = /^[-+#%.,\w\s()]*$/;

/** True when a style attribute holds only KaTeX's layout properties with plain values. */
export function katexStyleOK(style: string): boolean {
  for (const decl of style.split(';')) {
    if (!decl.trim()) continue;
    const i = decl.indexOf(':');
    if (i < 0) return false;
    const prop = decl.slice(0, i).trim().toLowerCase();
    const value = decl.slice(i + 1).trim().toLowerCase();
    if (!katexStyleProps.has(prop) || !plainValue.test(value) || /url|expression|var\(|env\(|attr\(/.test(value)) return false;
  }
  return true;
}

let hooked = false;
function purifier(): typeof DOMPurify {
  if (hooked) return DOMPurify;
  hooked = true;
  DOMPurify.addHook('uponSanitizeAttribute', (node, data) => {
    if (data.attrName.startsWith('data-') && data.attrName !== 'data-copy' && data.attrName !== 'data-cite' && data.attrName !== 'data-run') data.keepAttr = false;
    if (data.attrName === 'style') {
      const inKatex = (node as Element).closest?.('.katex, .katex-display') != null;
      if (!inKatex || !katexStyleOK(data.attrValue)) data.keepAttr = false;
    }
  });
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A') {
      const href = node.getAttribute('href') ?? '';
      if (!/^(https?:|mailto:|#)/i.test(href)) node.removeAttribute('href');
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  });
  return DOMPurify;
}

const purifyConfig = {
  FORBID_TAGS: ['style', 'script', 'iframe', 'object', 'embed', 'form', 'input', 'textarea', 'select', 'img', 'video', 'audio', 'source', 'link', 'meta', 'base'],
  FORBID_ATTR: ['srcset', 'action', 'formaction', 'background', 'ping', 'id', 'name'],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
  ADD_ATTR: ['target'],
};

/** Sanitises HTML with the rules above (exported for tests and for other renderers). */
export function sanitize(html: string): string {
  return purifier().sanitize(html, purifyConfig) as string;
}

/** Markdown (CommonMark + tables + math + code) as safe HTML. */
export function renderMarkdown(src: string, citations?: Citation[] | null, opts: { runnable?: boolean } = {}): string {
  const env = { citations: new Map((citations ?? []).map((c) => [c.n, c])), runnable: !!opts.runnable };
  return sanitize(md.render(normalizeMath(src ?? ''), env));
}

/** One line of Markdown (`code`, **bold**, links) as safe inline HTML, for labels and reasons. */
export function inlineMarkdown(src: string): string {
  return sanitize(md.renderInline(src ?? '', { citations: new Map() }));
}
