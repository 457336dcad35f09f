import type { Catalogue } from '../../catalogue.ts'
import type en from '../en/register.ts'

/** 简体中文，命名空间 `register`：注册页。 */
const zh: Catalogue<typeof en> = {
  title: '注册账号',
  errorCount_one: '请修改下方标出的 {{count}} 处错误。',
  errorCount_other: '请修改下方标出的 {{count}} 处错误。',
  username: '用户名',
  usernameHint: '3 到 32 个字符，可用字母、数字及 _ . -',
  email: '邮箱',
  displayName: '显示名称',
  displayNameHint: '老师和同学看到的名字，可不填。',
  password: '密码',
  passwordHint: '至少 8 个字符。',
  confirm: '确认密码',
  roleLegend: '我的身份',
  student: '学生',
  teacher: '教师',
  submit: '注册',
  submitting: '正在创建账号…',
  already: '已有账号？',
  logIn: '去登录',
  off: '本站未开放注册：账号来自单点登录。请直接登录。',
  errors: {
    usernameRequired: '请设置用户名。',
    usernameLength: '用户名须为 3 到 32 个字符。',
    usernameChars: '用户名只能包含字母、数字、下划线、点和连字符。',
    emailRequired: '请输入邮箱地址。',
    emailInvalid: '请输入有效的邮箱地址，例如 name@example.com。',
    passwordRequired: '请设置密码。',
    passwordShort: '密码至少需要 8 个字符。',
    passwordLong: '密码不能超过 128 个字符。',
    mismatch: '两次输入的密码不一致。',
    displayNameLong: '显示名称不能超过 64 个字符。',
  },
}
export default zh
