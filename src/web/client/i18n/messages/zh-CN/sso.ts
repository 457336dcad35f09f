import type { Catalogue } from '../../catalogue.ts'
import type en from '../en/sso.ts'

/** 简体中文，命名空间 `sso`：登录页上的单点登录。 */
const zh: Catalogue<typeof en> = {
  signInWith: '使用{{name}}登录',
  or: '或使用用户名和密码登录',
  failed: '单点登录未成功。请重试；如果仍然失败，请联系学校的 IT 服务台。',
  only: '本站通过{{name}}登录。',
}

export default zh
