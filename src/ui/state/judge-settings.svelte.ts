/**
 * The AI judge the playground may call (advisory only). The provider, URL and
 * model are kept in localStorage; the API key stays in memory unless the
 * user ticks "remember on this device".
 */
import type { ProviderConfig, ProviderKind } from '../../core/judge/index.ts';

export const JUDGE_STORAGE_KEY = 'sql-verdict.judge';

interface Stored {
  enabled: boolean;
  kind: ProviderKind;
  baseUrl: string;
  model: string;
  remember: boolean;
  apiKey?: string;
}

export const DEFAULT_BASE_URL: Record<ProviderKind, string> = {
  openai: 'http://127.0.0.1:11434/v1',
  anthropic: 'https://api.anthropic.com',
};

function storage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

export class JudgeSettings {
  enabled = $state(false);
  kind = $state<ProviderKind>('openai');
  baseUrl = $state(DEFAULT_BASE_URL.openai);
  model = $state('');
  apiKey = $state('');
  remember = $state(false);

  constructor() {
    try {
      const raw = storage()?.getItem(JUDGE_STORAGE_KEY);
      if (!raw) return;
      const s = JSON.parse(raw) as Partial<Stored>;
      this.enabled = s.enabled === true;
      if (s.kind === 'openai' || s.kind === 'anthropic') this.kind = s.kind;
      if (typeof s.baseUrl === 'string') this.baseUrl = s.baseUrl;
      if (typeof s.model === 'string') this.model = s.model;
      this.remember = s.remember === true;
      if (this.remember && typeof s.apiKey === 'string') this.apiKey = s.apiKey;
    } catch {
      // unreadable settings: start from the defaults
    }
  }

  /** Write the settings; the key only when "remember" is ticked. */
  save(): void {
    const s: Stored = {
      enabled: this.enabled,
      kind: this.kind,
      baseUrl: this.baseUrl,
      model: this.model,
      remember: this.remember,
    };
    if (this.remember && this.apiKey) s.apiKey = this.apiKey;
    try {
      storage()?.setItem(JUDGE_STORAGE_KEY, JSON.stringify(s));
    } catch {
      // storage full or blocked: the settings still hold for this page
    }
  }

  setKind(kind: ProviderKind): void {
    if (this.baseUrl === DEFAULT_BASE_URL[this.kind] || !this.baseUrl.trim()) this.baseUrl = DEFAULT_BASE_URL[kind];
    this.kind = kind;
    this.save();
  }

  /** The provider to send with a comparison, or null when the judge is off. */
  config(): ProviderConfig | null {
    if (!this.enabled) return null;
    const key = this.apiKey.trim();
    return { kind: this.kind, baseUrl: this.baseUrl.trim(), model: this.model.trim(), ...(key ? { apiKey: key } : {}) };
  }
}
