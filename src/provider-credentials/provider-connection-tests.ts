import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';

import { SecretBoxError } from '../common/crypto/secret-box';
import { notFound } from '../common/errors';
import { isProviderName } from '../common/validation/slug';
import { AppConfig } from '../config/app-config';
import { probeProvider, ProbeResult } from '../providers/provider-probe';
import { UpstreamHttp } from '../providers/upstream-http';
import { ProviderTestResultDto } from './provider-credential.dto';
import { ProviderCredentialEntity } from './provider-credential.entity';
import { LOCAL_PROVIDER, ProviderCredentialsService } from './provider-credentials.service';

/** A test waits at most this long, whatever PROVIDER_TIMEOUT_MS allows a call: a person is waiting for it. */
const MAX_TEST_TIMEOUT_MS = 10_000;

/**
 * Tests a project's provider (docs/providers.md, "Testing a provider"): the key as a call would
 * take it, then one model-list request (src/providers/provider-probe.ts) on a client of its own —
 * the outbound policy (PROVIDER_ALLOWED_HOSTS) as for calls, no retries, a short timeout — so a
 * test never waits behind, or holds, the invocations' connection pools.
 */
@Injectable()
export class ProviderConnectionTests implements OnApplicationShutdown {
  private readonly http: UpstreamHttp;
  private readonly timeoutMs: number;

  constructor(
    private readonly credentials: ProviderCredentialsService,
    config: AppConfig,
  ) {
    this.timeoutMs = Math.min(config.providerTimeoutMs, MAX_TEST_TIMEOUT_MS);
    const logger = new Logger('OutboundPolicy');
    this.http = new UpstreamHttp({ timeoutMs: this.timeoutMs, maxRetries: 0, allowedHosts: config.providerAllowedHosts }, (err) =>
      logger.warn(`Provider test refused: ${err.message}; an operator may allow it with PROVIDER_ALLOWED_HOSTS`),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.http.destroy();
  }

  async test(projectId: string, name: string): Promise<ProviderTestResultDto> {
    if (name === LOCAL_PROVIDER) return this.answer(name, await probeProvider(this.http, { type: 'local' }, this.timeoutMs));
    const credential = isProviderName(name) ? await this.credentials.findByName(projectId, name) : null;
    if (!credential) throw notFound('Provider credential not found');
    const key = this.keyOf(credential);
    if ('problem' in key) return this.answer(name, { ok: false, status: null, latencyMs: 0, message: key.problem });
    const result = await probeProvider(
      this.http,
      { type: credential.type, baseUrl: credential.baseUrl ?? undefined, apiKey: key.apiKey },
      this.timeoutMs,
    );
    return this.answer(name, result);
  }

  /**
   * The key a call would send, or why there is none where one was meant to be: a variable the
   * server does not lend to this host, or does not have, or a stored key this server cannot read.
   * Such a test calls nothing (the calls would go out without the key).
   */
  private keyOf(credential: ProviderCredentialEntity): { apiKey?: string } | { problem: string } {
    let apiKey: string | undefined;
    try {
      apiKey = this.credentials.apiKeyOf(credential);
    } catch (err) {
      if (!(err instanceof SecretBoxError)) throw err;
      return { problem: "The stored key cannot be read with this server's PARLEY_SECRET_KEY: store it again (PUT with the key)." };
    }
    const variable = credential.apiKeyEnv;
    if (apiKey !== undefined || !variable) return { apiKey };
    const writer = credential.apiKeyEnvByOperator ? 'operator' : 'project';
    const problem =
      this.credentials.apiKeyEnvProblem(variable) ?? this.credentials.bindingProblem(variable, credential.type, credential.baseUrl, writer);
    return {
      problem: problem
        ? `No key is sent: ${problem}.`
        : `No key is sent: the server has no value for ${variable} (set it on every replica).`,
    };
  }

  private answer(name: string, result: ProbeResult): ProviderTestResultDto {
    return { name, object: 'provider_credential.test', ...result };
  }
}
