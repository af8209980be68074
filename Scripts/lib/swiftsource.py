"""Just enough of Swift's lexical grammar for the structure checks (folder-layers.py,
unused-declarations.py): identifiers and punctuation outside comments and string
literals (a string's interpolations are code), and the declarations a file makes.

Not a parser: it relies on carve's sources being formatted by swift-format (one
declaration keyword before its name, braces balanced outside strings).
"""

import re
from dataclasses import dataclass, field

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
NUMBER = re.compile(r"0[xob][0-9A-Fa-f_]+|\$?[0-9][0-9_]*(?:\.[0-9][0-9_]*)?(?:[eE][+-]?[0-9]+)?|\$\w*")
DECL_KEYWORDS = {"struct", "enum", "class", "protocol", "actor", "typealias", "func", "let", "var", "case",
                 "associatedtype"}
TYPE_KEYWORDS = {"struct", "enum", "class", "protocol", "actor", "extension"}
MODIFIERS = {"public", "internal", "private", "fileprivate", "package", "open", "final", "static", "class",
             "override", "mutating", "nonmutating", "indirect", "lazy", "weak", "unowned", "nonisolated",
             "convenience", "required", "dynamic", "consuming", "borrowing", "isolated", "optional"}


@dataclass
class Token:
    text: str
    line: int
    ident: bool


def tokens(source):
    """The file's identifiers and punctuation, comments and string text left out."""
    out = []
    _code(source, 0, 1, out, nested=False)
    return out


def _code(s, i, line, out, nested):
    """Lexes code from i; when nested (a string interpolation), stops after its `)`."""
    depth = 0
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif s.startswith("//", i):
            j = s.find("\n", i)
            i = n if j < 0 else j
        elif s.startswith("/*", i):
            i, line = _block_comment(s, i, line)
        elif c == '"' or (c == "#" and re.match(r'#+"', s[i:])):
            i, line = _string(s, i, line, out)
        elif c == "`":
            j = s.index("`", i + 1)
            out.append(Token(s[i + 1:j], line, True))
            i = j + 1
        elif c.isalpha() or c == "_":
            m = IDENT.match(s, i)
            out.append(Token(m.group(), line, True))
            i = m.end()
        elif c.isdigit() or c == "$":  # a number; $0 of a closure
            i = NUMBER.match(s, i).end()
        else:
            if nested and c == "(":
                depth += 1
            elif nested and c == ")":
                if depth == 0:
                    return i + 1, line
                depth -= 1
            out.append(Token(c, line, False))
            i += 1
    return i, line


def _block_comment(s, i, line):
    """Swift's block comments nest."""
    depth = 0
    while i < len(s):
        if s.startswith("/*", i):
            depth += 1
            i += 2
        elif s.startswith("*/", i):
            depth -= 1
            i += 2
            if depth == 0:
                return i, line
        else:
            line += s[i] == "\n"
            i += 1
    return i, line


def _string(s, i, line, out):
    hashes = len(s[i:]) - len(s[i:].lstrip("#"))
    i += hashes
    multi = s.startswith('"""', i)
    quote = '"""' if multi else '"'
    i += len(quote)
    close = quote + "#" * hashes
    escape = "\\" + "#" * hashes
    out.append(Token('""', line, False))
    while i < len(s):
        if s.startswith(close, i):
            return i + len(close), line
        if s.startswith(escape, i):
            i += len(escape)
            if i < len(s) and s[i] == "(":
                i, line = _code(s, i + 1, line, out, nested=True)
            else:
                i += 1
            continue
        line += s[i] == "\n"
        i += 1
    return i, line


@dataclass
class Declaration:
    name: str
    keyword: str
    line: int
    top_level: bool  # at file scope, not inside a type or an extension
    member: bool  # directly inside a type's or an extension's braces
    private: bool  # private or fileprivate: no other file can use it
    attributes: list = field(default_factory=list)
    owner_header: list = field(default_factory=list)  # the enclosing type's header tokens


def declarations(toks):
    """Every declaration at file scope or directly in a type's body (not locals),
    with the generic parameters of each as `generic` declarations."""
    decls = []
    scopes = []  # for each open brace: the header tokens of a type, or None for code
    header_start = 0
    i = 0
    while i < len(toks):
        t = toks[i]
        in_code = any(s is None for s in scopes)
        if t.text == "{" and not t.ident:
            scopes.append(_type_header(toks, header_start, i))
            header_start = i + 1
        elif t.text == "}" and not t.ident:
            if scopes:
                scopes.pop()
            header_start = i + 1
        elif t.text == ";" and not t.ident:
            header_start = i + 1
        elif t.ident and t.text in DECL_KEYWORDS and not in_code and i + 1 < len(toks):
            nxt = toks[i + 1]
            prev = toks[i - 1].text if i else ""
            if t.text in ("let", "var", "case") and prev == "(":
                pass  # a pattern, not a declaration
            elif nxt.ident and not (t.text == "class" and nxt.text in MODIFIERS | {"func", "var", "let"}):
                mods, attrs = _prefix(toks, i)
                decls.append(Declaration(
                    nxt.text, t.text, nxt.line, top_level=not scopes, member=bool(scopes),
                    private=bool(mods & {"private", "fileprivate"}), attributes=attrs,
                    owner_header=[x.text for x in scopes[-1]] if scopes else []))
                decls.extend(_generics(toks, i + 2))
                if t.text in ("let", "var", "case"):
                    decls.extend(_more_bindings(toks, i + 2, t.text, decls[-1]))
        i += 1
    return decls


def _type_header(toks, start, brace):
    """The tokens from a type or extension keyword to its `{`, or None for a code block."""
    for k in range(start, brace):
        if toks[k].ident and toks[k].text in TYPE_KEYWORDS:
            if toks[k].text == "class" and k + 1 < brace and toks[k + 1].text in ("func", "var", "let"):
                return None
            if all(toks[j].text not in ("func", "var", "let", "init", "subscript", "case", "=")
                   for j in range(start, k)):
                return toks[k:brace]
            return None
    return None


def _prefix(toks, i):
    """The modifiers and attribute names written before the keyword at i."""
    mods, attrs = set(), []
    k = i - 1
    while k >= 0:
        t = toks[k]
        if t.ident and t.text in MODIFIERS:
            mods.add(t.text)
        elif t.text == ")" and not t.ident:  # private(set), @available(...)
            depth = 1
            while k > 0 and depth:
                k -= 1
                depth += {")": 1, "(": -1}.get(toks[k].text, 0) if not toks[k].ident else 0
        elif t.ident and k > 0 and toks[k - 1].text == "@":
            attrs.append(t.text)
            k -= 1
        else:
            break
        k -= 1
    return mods, attrs


def _generics(toks, i):
    """`<A, B: P>` after a declared name: A and B shadow any outer A and B."""
    out = []
    if i < len(toks) and toks[i].text == "<":
        depth, k, expect = 1, i + 1, True
        while k < len(toks) and depth:
            t = toks[k]
            if t.text == "<":
                depth += 1
            elif t.text == ">":
                depth -= 1
            elif t.text == "," and depth == 1:
                expect = True
                k += 1
                continue
            elif t.ident and expect and depth == 1:
                out.append(Declaration(t.text, "generic", t.line, False, False, True))
            expect = False
            k += 1
    return out


def _more_bindings(toks, i, keyword, first):
    """`case a, b` and `let a = 1, b = 2` declare more than one name."""
    out, depth = [], 0
    k = i
    while k < len(toks) and toks[k].line == first.line:
        t = toks[k]
        if t.text in "([{<" and not t.ident:
            depth += 1
        elif t.text in ")]}>" and not t.ident:
            depth -= 1
        elif t.text == "," and depth == 0 and k + 1 < len(toks) and toks[k + 1].ident:
            d = Declaration(toks[k + 1].text, keyword, toks[k + 1].line, first.top_level, first.member,
                            first.private, first.attributes, first.owner_header)
            out.append(d)
        k += 1
    return out
