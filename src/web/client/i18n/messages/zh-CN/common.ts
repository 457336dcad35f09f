import type { Catalogue } from '../../catalogue.ts'
import type en from '../en/common.ts'

/** 简体中文，命名空间 `common`：登录与注册页、页面框架和共用组件。 */
const zh: Catalogue<typeof en> = {
  brand: '课程学习',
  pageTitle: '{{title}} · 课程学习',
  login: {
    title: '登录',
    identifier: '用户名或邮箱',
    password: '密码',
    identifierRequired: '请输入用户名或邮箱。',
    passwordRequired: '请输入密码。',
    submit: '登录',
    submitting: '正在登录…',
    continueHint: '请先登录。登录后将回到你刚才所在的页面。',
    loggedOut: '你已退出登录。',
    registered: '账号已创建，登录即可开始。',
    newHere: '还没有账号？',
    createAccount: '注册新账号',
  },
  time: {
    dueNow: '已到截止时间',
    pastDue: '已过截止时间',
    daysHoursLeft: '剩余 {{d}} 天 {{h}} 小时',
    hoursMinutesLeft: '剩余 {{h}} 小时 {{m}} 分钟',
    minutesLeft: '剩余 {{m}} 分钟',
    underAMinute: '剩余不到 1 分钟',
  },
  language: {
    label: '语言',
    en: 'English',
    'zh-CN': '简体中文',
  },
}
export default zh
