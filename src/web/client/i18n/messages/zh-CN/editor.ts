import type { Catalogue } from '../../catalogue.ts'
import type en from '../en/editor.ts'

/** 简体中文，命名空间 `editor`：富文本编辑器的工具栏。 */
const zh: Catalogue<typeof en> = {
  toolbar: '“{{label}}”的格式工具',
  bold: '加粗',
  italic: '斜体',
  underline: '下划线',
  strike: '删除线',
  h2: 'H2 二级标题',
  h3: 'H3 三级标题',
  bullet: '无序列表',
  ordered: '1. 有序列表',
  quote: '引用',
  code: '行内代码',
  codeBlock: '代码块',
  link: '链接',
  linkAddress: '链接地址',
  linkPlaceholder: 'https://…',
  apply: '应用',
}
export default zh
