import type { Catalogue } from '../../catalogue.ts'
import type en from '../en/sso.ts'

/** 简体中文，命名空间 `sso`：登录页上的单点登录。 */
const zh: Catalogue<typeof en> = {
  signInWith: '使用{{name}}登录',
  or: '或使用用户名和密码登录',
  failed: '单点登录未成功。请重试；如果仍然失败，请联系学校的 IT 服务台。',
  only: '本站通过{{name}}登录。',
  unverifiedLocal: '本站已有一个账号使用你的邮箱地址，但该地址从未被确认，因此没有让你登录该账号：它可能是别人注册的。',
  unverifiedLocalWhatToDo:
    '如果这个账号是你的，请先通过“忘记密码”证明邮箱归你所有（链接会发到你的邮箱，并让其他所有人退出登录），然后再用单点登录。如果本站不发送邮件，请向学校索取重置链接。',
  unverifiedLocalReset: '忘记密码',
}

export default zh
