/** English, namespace `editor`: the rich-text editor's toolbar (loaded with the editor). */
export default {
  toolbar: 'Formatting for {{label}}',
  bold: 'Bold',
  italic: 'Italic',
  underline: 'Underline',
  strike: 'Strikethrough',
  h2: 'H2 heading',
  h3: 'H3 subheading',
  bullet: 'Bulleted list',
  ordered: '1. Numbered list',
  quote: 'Quote',
  code: 'Inline code',
  codeBlock: 'Code block',
  link: 'Link',
  linkAddress: 'Link address',
  linkPlaceholder: 'https://…',
  apply: 'Apply',
}
