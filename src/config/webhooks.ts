import type { Context } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { notifyConfigKey, webhookConfigKey } from './keys.js';
import { configFile } from './paths.js';
import { DEFAULT_PROFILE } from './settings.js';
import { readConfig } from './store.js';

/** The URL saved with `tds config set webhook.NAME` (`tds push @NAME`); `profile` defaults to TDS_PROFILE, then "default". */
export async function loadWebhook(ctx: Context, name: string, profile?: string): Promise<string> {
  const webhook = name.replace(/^@/, '');
  const profileName = profile || ctx.io.env.TDS_PROFILE || DEFAULT_PROFILE;
  const file = configFile(ctx.io.env);
  const config = await readConfig(file);
  const url = config.profiles[profileName]?.[webhookConfigKey(webhook)];
  if (!url) {
    throw new UsageError(`no webhook named "${webhook}" in profile "${profileName}" (${file})`, {
      hint: `save it with \`tds config set webhook.${webhook}\` (the URL is read from stdin or a hidden prompt)`,
    });
  }
  return url;
}

/** The URL saved with `tds config set notify.NAME` (`tds check --notify @NAME`): a secret, like a webhook URL. */
export async function loadNotifyUrl(ctx: Context, name: string, profile?: string): Promise<string> {
  const receiver = name.replace(/^@/, '');
  const profileName = profile || ctx.io.env.TDS_PROFILE || DEFAULT_PROFILE;
  const file = configFile(ctx.io.env);
  const url = (await readConfig(file)).profiles[profileName]?.[notifyConfigKey(receiver)];
  if (!url) {
    throw new UsageError(`no notification URL named "${receiver}" in profile "${profileName}" (${file})`, {
      hint: `save it with \`tds config set notify.${receiver}\` (the URL is read from stdin or a hidden prompt)`,
    });
  }
  return url;
}
