# rehome's knowledge parser. It runs INSIDE the sandbox (no network, a
# memory ceiling, a wall-clock kill), one file per run, because the files
# are untrusted: a hostile PDF or a zip bomb in a DOCX meets pdftotext or
# python-docx here, never on the host. The Go side prepends INPUT, FORMAT
# and MAX_TEXT; the result is /mnt/data/rehome-parsed.json:
#   {"ok": true, "pages": N, "sections": [{"page", "section", "text"}]}
#   {"ok": false, "reason": "encrypted" | "no_text" | "not_format" |
#    "zip_bomb" | "too_long" | "failed", "detail": "..."}
import json
import re
import subprocess
import sys
import zipfile

OUT = "/mnt/data/rehome-parsed.json"
ZIP_MAX = 512 << 20  # what the parts of an Office file may unpack to
ZIP_RATIO = 200  # and how many times their packed size


class Refused(Exception):
    def __init__(self, reason, detail):
        super().__init__(detail)
        self.reason, self.detail = reason, detail


def check_zip(path, what):
    try:
        z = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise Refused("not_format", "not a %s although named so: it is not a zip archive" % what)
    total = packed = 0
    for i in z.infolist():
        total += i.file_size
        packed += i.compress_size
    if total > ZIP_MAX or (packed > 0 and total > 1 << 20 and total / packed > ZIP_RATIO):
        raise Refused("zip_bomb", "its parts would unpack to %d MB from %d KB (a zip bomb?)" % (total >> 20, packed >> 10))
    return z


def pdf(path):
    with open(path, "rb") as f:
        if b"%PDF-" not in f.read(1024):
            raise Refused("not_format", "not a PDF although named .pdf")
    info = subprocess.run(["pdfinfo", path], capture_output=True, text=True, errors="replace")
    if "Incorrect password" in info.stderr or "Command Line Error: Incorrect password" in info.stderr:
        raise Refused("encrypted", "an encrypted PDF: open it with its password and save a copy without one")
    if info.returncode != 0:
        raise Refused("failed", "pdfinfo could not read it: " + info.stderr.strip()[:300])
    p = subprocess.run(["pdftotext", "-enc", "UTF-8", path, "-"], capture_output=True, errors="replace", text=True)
    if p.returncode != 0:
        if "password" in p.stderr.lower():
            raise Refused("encrypted", "an encrypted PDF: open it with its password and save a copy without one")
        raise Refused("failed", "pdftotext could not read it: " + p.stderr.strip()[:300])
    pages = p.stdout.split("\f")
    if pages and pages[-1].strip() == "":
        pages = pages[:-1]
    out = [{"page": i + 1, "section": "", "text": t} for i, t in enumerate(pages) if t.strip()]
    if not out:
        raise Refused("no_text", "no text layer: a scan; OCR is not available")
    return len(pages), out


def docx(path):
    check_zip(path, "DOCX")
    import docx as d
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    doc = d.Document(path)
    heads, out, buf = [], [], []

    def flush():
        if buf:
            out.append({"page": 0, "section": " › ".join(heads), "text": "\n".join(buf)})
            buf.clear()

    for el in doc.element.body.iterchildren():
        tag = el.tag.rsplit("}", 1)[-1]
        if tag == "p":
            p = Paragraph(el, doc)
            style = (p.style.name if p.style is not None else "") or ""
            m = re.match(r"(?i)heading (\d)", style)
            level = max(int(m.group(1)), 1) if m else (1 if style.lower() == "title" else 0)
            if level and p.text.strip():
                flush()
                del heads[level - 1:]
                heads.append(p.text.strip())
                buf.append(p.text.strip())
            elif p.text.strip():
                buf.append(p.text)
        elif tag == "tbl":
            for row in Table(el, doc).rows:
                buf.append(" | ".join(c.text.strip() for c in row.cells))
    flush()
    return 0, out


def pptx(path):
    z = check_zip(path, "PPTX")
    names = [n for n in z.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)]
    if not names:
        raise Refused("not_format", "not a PPTX: it has no slides")
    names.sort(key=lambda n: int(re.search(r"(\d+)", n.rsplit("/", 1)[1]).group(1)))
    import xml.etree.ElementTree as ET

    A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
    out = []
    for i, n in enumerate(names):
        root = ET.fromstring(z.read(n))
        lines = []
        for p in root.iter(A + "p"):
            t = "".join(r.text or "" for r in p.iter(A + "t"))
            if t.strip():
                lines.append(t)
        if lines:
            out.append({"page": i + 1, "section": lines[0][:120], "text": "\n".join(lines)})
    return len(names), out


def xlsx(path):
    check_zip(path, "XLSX")
    import openpyxl

    # A file object: openpyxl refuses a path without its .xlsx extension.
    wb = openpyxl.load_workbook(open(path, "rb"), read_only=True, data_only=True)
    out = []
    for ws in wb.worksheets:
        rows = []
        for row in ws.iter_rows(values_only=True):
            cells = ["" if v is None else str(v) for v in row]
            while cells and cells[-1] == "":
                cells.pop()
            if cells:
                rows.append(" | ".join(cells))
        if rows:
            out.append({"page": 0, "section": "sheet " + ws.title, "text": "\n".join(rows)})
    return 0, out


def html(path):
    from bs4 import BeautifulSoup

    with open(path, "rb") as f:
        soup = BeautifulSoup(f.read(), "html.parser")
    for t in soup(["script", "style", "noscript", "template"]):
        t.decompose()
    heads, out, buf = [], [], []

    def flush():
        text = "\n".join(s for s in buf if s.strip())
        if text.strip():
            out.append({"page": 0, "section": " › ".join(heads), "text": text})
        buf.clear()

    body = soup.body or soup
    blocks = ["h1", "h2", "h3", "h4", "h5", "h6", "p", "li", "pre", "td", "th", "dt", "dd", "caption", "blockquote"]
    for el in body.find_all(blocks):
        if el.find_parent(blocks) is not None and el.name not in ("td", "th"):
            continue  # its text comes with the enclosing block
        text = el.get_text(" ", strip=True)
        if not text:
            continue
        if el.name[0] == "h" and el.name[1:].isdigit():
            flush()
            level = int(el.name[1])
            del heads[level - 1:]
            heads.append(text[:120])
        buf.append(text)
    flush()
    if not out:
        text = body.get_text("\n", strip=True)
        if text:
            out.append({"page": 0, "section": "", "text": text})
    return 0, out


PARSERS = {"pdf": pdf, "docx": docx, "pptx": pptx, "xlsx": xlsx, "html": html}


def main():
    try:
        pages, sections = PARSERS[FORMAT](INPUT)  # noqa: F821 (set by rehome)
        size = sum(len(s["text"]) for s in sections)
        if size > MAX_TEXT:  # noqa: F821
            raise Refused("too_long", "%d characters of text" % size)
        if not sections:
            raise Refused("no_text", "no text in it")
        res = {"ok": True, "pages": pages, "sections": sections}
    except Refused as e:
        res = {"ok": False, "reason": e.reason, "detail": e.detail}
    except MemoryError:
        res = {"ok": False, "reason": "failed", "detail": "reading it took more memory than the sandbox allows"}
    except Exception as e:  # a parser's own error on a damaged file
        res = {"ok": False, "reason": "failed", "detail": "%s: %s" % (type(e).__name__, str(e)[:300])}
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(res, f, ensure_ascii=False)
    print("ok" if res["ok"] else res["reason"])


main()
sys.exit(0)
