/** The operator's channel settings from the configuration, with the SMTP CA file read once at start. */
import { readFileSync } from 'node:fs';
import type { ChannelEndpoints } from './types.js';

export interface ChannelSettings {
  telegramApiUrl: string;
  ntfyUrl: string;
  smtpCaFile?: string;
}

export function channelEndpoints(settings: ChannelSettings): ChannelEndpoints {
  const { telegramApiUrl, ntfyUrl, smtpCaFile } = settings;
  if (!smtpCaFile) return { telegramApiUrl, ntfyUrl };
  try {
    return { telegramApiUrl, ntfyUrl, smtpCa: readFileSync(smtpCaFile, 'utf8') };
  } catch (e) {
    throw new Error(`MARKETLENS_SMTP_CA_FILE: cannot read ${smtpCaFile}: ${(e as Error).message}`, { cause: e });
  }
}
