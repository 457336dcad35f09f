import type { Catalogue } from '../../catalogue.ts'
import type en from '../en/calendar.ts'

/** 简体中文，命名空间 `calendar`：作业中心里的日历订阅框。 */
const zh: Catalogue<typeof en> = {
  heading: '把截止日期加入日历',
  explain: '在 Google 日历、Outlook 或苹果日历中订阅这个私有地址：作业和实验的截止时间会出现在日历里，并随每次调整自动更新。',
  urlLabel: '你的日历订阅地址',
  copy: '复制地址',
  rotate: '换一个新地址',
  rotating: '正在更换…',
  rotateConfirm: '当前地址会立即失效，所有使用它的日历都将无法更新。确定要换一个新地址吗？',
  rotated: '新地址已生成，请在日历应用中重新订阅。',
  warning: '任何拿到这个地址的人都能看到你的截止日期。如果地址泄露，请换一个新地址。',
  failed: '无法加载日历订阅地址。',
}
export default zh
