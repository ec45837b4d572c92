import { describe, expect, it } from 'vitest';
import { articleHTML, opener, parseZim, resolveZim, webLink } from './browse';

describe('zim addresses', () => {
  it('splits and refuses climbing out', () => {
    expect(parseZim('zim://py/library/json.html')).toEqual({ book: 'py', path: 'library/json.html' });
    expect(parseZim('zim://py/../etc/passwd')).toBeNull();
    expect(parseZim('https://x/y')).toBeNull();
    expect(parseZim('zim://py/%zz.html')).toBeNull();
  });
  it('resolves an article link inside its library only', () => {
    expect(resolveZim('zim://py/library/json.html', 'csv.html#module-csv')).toBe('zim://py/library/csv.html');
    expect(resolveZim('zim://py/library/json.html', '../tutorial/index.html')).toBe('zim://py/tutorial/index.html');
    expect(resolveZim('zim://py/library/json.html', '../../../x.html')).toBeNull();
    expect(resolveZim('zim://py/library/json.html', 'https://docs.python.org/3/')).toBeNull();
    expect(resolveZim('zim://py/library/json.html', 'javascript:alert(1)')).toBeNull();
    expect(resolveZim('zim://py/library/json.html', '#fragment')).toBeNull();
  });
  it('says who opens an address', () => {
    expect(opener('zim://py/a.html')).toBe('zim');
    expect(opener('https://example.org/')).toBe('web');
    expect(opener('file:///etc/passwd')).toBeNull();
  });
});

describe('the reader sanitises the article', () => {
  it('keeps text and library links, drops scripts, handlers and images', () => {
    const html = articleHTML('zim://py/library/json.html',
      '<html><body><h1 onclick="x()">JSON</h1><script>steal()</script><img src=x onerror=alert(1)><a href="csv.html">csv</a><a href="javascript:alert(1)">bad</a><a href="https://python.org">web</a></body></html>');
    expect(html).toContain('<h1>JSON</h1>');
    expect(html).toContain('href="#zim=zim://py/library/csv.html"');
    expect(html).toContain('href="https://python.org"');
    expect(html).not.toMatch(/script|onerror|onclick|<img|javascript:/);
  });
});

describe('the reader takes the backend\'s zim:// links', () => {
  it('keeps the library\'s addresses for the reader, web links as they are, nothing else', () => {
    const html = articleHTML('zim://py/library/json.html',
      '<p><a href="zim://py/library/csv.html">csv</a> <a href="zim://py/../etc/passwd">out</a> <a href="https://www.python.org/">web</a> <a href="file:///etc/passwd">file</a></p>');
    expect(html).toContain('href="#zim=zim://py/library/csv.html"');
    expect(html).toContain('href="https://www.python.org/"');
    expect(html).not.toMatch(/etc\/passwd|file:/);
  });
  it('says which clicks leave for the web', () => {
    expect(webLink('https://www.python.org/')).toBe('https://www.python.org/');
    expect(webLink('#zim=zim://py/a.html')).toBeNull();
    expect(webLink('javascript:alert(1)')).toBeNull();
  });
});
