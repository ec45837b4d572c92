import { describe, expect, it } from 'vitest';
import { citeLabel, highlight, katexStyleOK, normalizeMath, renderMarkdown, sanitize } from './markdown';

// Parses the rendered HTML the way the page would and returns the tree.
function dom(html: string): HTMLElement {
  const d = document.createElement('div');
  d.innerHTML = html;
  return d;
}

describe('renderMarkdown: what users expect', () => {
  it('renders CommonMark emphasis, lists and headings', () => {
    const d = dom(renderMarkdown('# Title\n\n**bold** and _it_\n\n- one\n- two'));
    expect(d.querySelector('h1')?.textContent).toBe('Title');
    expect(d.querySelector('strong')?.textContent).toBe('bold');
    expect(d.querySelector('em')?.textContent).toBe('it');
    expect(d.querySelectorAll('li').length).toBe(2);
  });

  it('renders pipe tables', () => {
    const d = dom(renderMarkdown('| a | b |\n|---|---|\n| 1 | 2 |'));
    expect(d.querySelectorAll('table th').length).toBe(2);
    expect(d.querySelector('table td')?.textContent).toBe('1');
  });

  it('highlights fenced code and gives it a copy button', () => {
    const d = dom(renderMarkdown('```python\nimport pandas as pd\nprint("hi")\n```'));
    const code = d.querySelector('.codeblock pre code');
    expect(code?.textContent).toBe('import pandas as pd\nprint("hi")\n');
    expect(code?.querySelector('.hljs-keyword')?.textContent).toBe('import');
    expect(d.querySelector('.codeblock button[data-copy=code]')).not.toBeNull();
    expect(d.querySelector('.codeblock .lang')?.textContent).toBe('python');
  });

  it('renders $…$, $$…$$, \\(…\\) and \\[…\\] math with KaTeX', () => {
    for (const src of ['the sum $\\sum_{i=1}^n x_i$ here', '$$\\frac{a}{b}$$', 'inline \\(x^2\\) too', '\\[\\int_0^1 f\\]']) {
      const d = dom(renderMarkdown(src));
      expect(d.querySelector('.katex'), src).not.toBeNull();
    }
  });

  it('keeps math-like text in code as typed', () => {
    expect(normalizeMath('`\\(x\\)` and \\(y\\)')).toBe('`\\(x\\)` and $y$');
    const d = dom(renderMarkdown('```\n$x$ \\(y\\)\n```'));
    expect(d.querySelector('.katex')).toBeNull();
    expect(d.querySelector('code')?.textContent).toContain('$x$ \\(y\\)');
  });

  it('keeps raw backticks apart from a following link (the "`rehome run`open it" detail)', () => {
    const d = dom(renderMarkdown('run `rehome run` or [open it in rehome](https://example.org/x)'));
    expect(d.querySelector('code')?.textContent).toBe('rehome run');
    expect(d.textContent?.trim()).toBe('run rehome run or open it in rehome');
  });
});

describe('renderMarkdown: hostile answers run nothing', () => {
  const hostile = [
    '<script>window.pwned=1</script>',
    '<img src=x onerror="window.pwned=1">',
    '<svg onload="window.pwned=1"><circle r=1></svg>',
    '<iframe src="javascript:window.pwned=1"></iframe>',
    '<a href="javascript:window.pwned=1">x</a>',
    '[click](javascript:window.pwned=1)',
    '[click](JaVaScRiPt:window.pwned=1)',
    '[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
    '[click](vbscript:msgbox)',
    '![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
    '![pixel](https://tracker.example/p.gif)',
    '<style>body{display:none}</style>',
    '<div style="position:fixed;inset:0;z-index:9999;background:red">cover</div>',
    '<form action="https://x"><input name=a></form>',
    '$\\href{javascript:alert(1)}{x}$',
    '$\\url{javascript:alert(1)}$',
    '$\\htmlStyle{position:fixed;top:0}{x}$',
    '$\\color{red;position:fixed;top:0}{x}$',
    '$\\includegraphics{https://tracker.example/p.png}$',
  ];
  for (const src of hostile) {
    it(`neutralises ${src.slice(0, 60)}`, () => {
      const html = renderMarkdown(src);
      const d = dom(html);
      expect(d.querySelector('script, style, iframe, img, svg[onload], form, input, object, embed')).toBeNull();
      for (const el of d.querySelectorAll('*')) {
        for (const a of Array.from(el.attributes)) {
          expect(a.name.startsWith('on'), `${a.name} on ${el.tagName}`).toBe(false);
          if (a.name === 'href') expect(a.value).toMatch(/^(https?:|mailto:|#)/i);
          expect(a.value, `${a.name} on ${el.tagName}`).not.toMatch(/javascript:|vbscript:|data:|tracker\.example/i);
          if (a.name === 'style') {
            expect(el.closest('.katex')).not.toBeNull();
            expect(a.value).not.toMatch(/position|fixed|url\(|z-index/i);
          }
        }
      }
      expect(html).not.toMatch(/<(script|style|iframe|img|form)/i);
    });
  }

  it('shows raw HTML as the text it is', () => {
    const d = dom(renderMarkdown('<b>not bold</b>'));
    expect(d.querySelector('b')).toBeNull();
    expect(d.textContent).toContain('<b>not bold</b>');
  });

  it('opens links outside the app, without the opener', () => {
    const a = dom(renderMarkdown('[docs](https://example.org/)')).querySelector('a')!;
    expect(a.getAttribute('href')).toBe('https://example.org/');
    expect(a.getAttribute('target')).toBe('_blank');
    expect(a.getAttribute('rel')).toBe('noopener noreferrer');
  });

  it('sanitize strips style outside KaTeX and handlers anywhere', () => {
    const d = dom(sanitize('<p style="position:fixed">a</p><span class="katex"><span style="height:1em;position:fixed">b</span><span style="height:0.7em;vertical-align:-0.2em">c</span></span><b onclick="x()">d</b>'));
    expect(d.querySelector('p')?.getAttribute('style')).toBeNull();
    const spans = d.querySelectorAll('.katex span');
    expect(spans[0].getAttribute('style')).toBeNull();
    expect(spans[1].getAttribute('style')).toBe('height:0.7em;vertical-align:-0.2em');
    expect(d.querySelector('b')?.getAttribute('onclick')).toBeNull();
  });

  it('katexStyleOK takes KaTeX layout and refuses the rest', () => {
    expect(katexStyleOK('height:1.2em;vertical-align:-0.25em;')).toBe(true);
    expect(katexStyleOK('top:-3.063em;margin-right:0.05em')).toBe(true);
    expect(katexStyleOK('position:fixed')).toBe(false);
    expect(katexStyleOK('background-color:url(x)')).toBe(false);
    expect(katexStyleOK('color:red;z-index:99')).toBe(false);
  });
});

describe('citations', () => {
  const cites = [
    { n: 1, file: 'handbook.pdf', page: 3, page_end: 4, quote: 'Leave is 25 days.' },
    { n: 2, file: 'notes.md', section: 'Onboarding', quote: 'Ask IT for a laptop.' },
  ];
  it('turns [n] into a chip for each citation the turn carries', () => {
    const d = dom(renderMarkdown('Leave is 25 days [1], laptops from IT [2]; see [3].', cites));
    const chips = d.querySelectorAll('button.cite');
    expect(Array.from(chips).map((c) => c.getAttribute('data-cite'))).toEqual(['1', '2']);
    expect(chips[0].getAttribute('title')).toBe('handbook.pdf, pages 3–4');
    expect(d.textContent).toContain('see [3].');
  });
  it('leaves [n] as text without citations, and in code', () => {
    expect(dom(renderMarkdown('a [1] b')).querySelector('.cite')).toBeNull();
    expect(dom(renderMarkdown('`x[1]`', cites)).querySelector('.cite')).toBeNull();
  });
  it('labels a source by file, pages and section', () => {
    expect(citeLabel({ n: 1, file: 'a.pdf', page: 2, quote: '' })).toBe('a.pdf, page 2');
    expect(citeLabel(cites[1])).toBe('notes.md, Onboarding');
  });
});

describe('highlight', () => {
  it('escapes what it highlights', () => {
    const d = dom(highlight('print("<img src=x onerror=alert(1)>")', 'python'));
    expect(d.querySelector('img')).toBeNull();
    expect(d.textContent).toBe('print("<img src=x onerror=alert(1)>")');
    expect(dom(highlight('<b>x</b>', 'nolang')).querySelector('b')).toBeNull();
  });
});
