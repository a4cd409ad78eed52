/**
 * The built-in `local` provider. It is NOT a language model: it generates nothing and knows
 * nothing. It exists so Parley works with no account anywhere — for development, demos and tests —
 * and its answers are deterministic so tests can assert them.
 *
 * Model `echo`:
 * - answers with the text of the last `user` message (string content, or its text parts joined
 *   with "\n"); if the last message is a `tool` result, answers with that result's text instead,
 *   so a tool round trip completes;
 * - otherwise, when `tool_choice` names a function, or is `required` and tools are given (the
 *   first tool is used), answers with one call of that tool, arguments `{"input": <last user text>}`;
 * - with `tool_choice` `auto` (or none) and function tools, when the last message is the user's and
 *   its text mentions a tool — its whole name, or a part of it of four letters or more (split at
 *   `_`, `-`, `.` and lower-to-upper case changes), as a word, ignoring case — answers with one
 *   call of the first such tool, arguments as above ("What's the weather?" calls `get_weather`);
 * - `stop`: the answer ends before the first occurrence of any stop sequence (`finish_reason` stop,
 *   the sequence as the choice's `stop_sequence`: provider.types.ts, StopSequenceField);
 * - `max_completion_tokens` (else `max_tokens`) counts words: the answer is cut after that many
 *   whitespace-separated words and `finish_reason` is `length`;
 * - `n` gives that many identical choices;
 * - `usage` counts words too: prompt = words of every message's text content, completion = words
 *   of the answer (of the arguments string for a tool call), times `n`. They are not tokens of any
 *   tokenizer;
 * - streams word by word (each chunk a word with the whitespace before it), with no delay, one
 *   choice after the other;
 * - sampling parameters (`temperature`, `top_p`, penalties, `seed`) change nothing: it is
 *   deterministic anyway. It cannot answer in JSON: `response_format` json_object / json_schema is
 *   what `unsupportedParam` names (the spec's invoke endpoints ignore it, as before).
 * The completion `id` is random; everything else depends only on the request.
 */
import { createHash, randomUUID } from 'node:crypto';

import { localEmbed } from './local-embed';
import { contentText, countWords } from './message-text';
import type { ChatCompletion, ChatCompletionChunk, StopSequenceField } from './provider.types';
import {
  EmbeddingRequest,
  EmbeddingResult,
  InputTokenCount,
  ProviderAdapter,
  ProviderCallOptions,
  ProviderCredentials,
  ProviderError,
  ProviderRequest,
  ProviderResult,
  ProviderStream,
} from './provider.types';
import { ChunkHeader, ChunkStream, makeChunk } from './provider-stream';
import { completionUsageOf, plainTokens } from './token-usage';

export const LOCAL_MODELS: readonly string[] = ['echo'];

type Answer =
  | { kind: 'text'; text: string; finish: 'stop' | 'length'; stop?: StopSequenceField }
  | { kind: 'tool_call'; id: string; name: string; arguments: string };

/** Text up to the end of its `limit`-th word, or undefined when it has no more words than that. */
function cutAfterWords(text: string, limit: number): string | undefined {
  const words = text.matchAll(/\S+/g);
  let seen = 0;
  let end = 0;
  for (const word of words) {
    if (seen === limit) return text.slice(0, end);
    seen += 1;
    end = word.index + word[0].length;
  }
  return undefined;
}

/** Pieces that concatenate back to `text` exactly: each word with the whitespace before it. */
function wordPieces(text: string): string[] {
  return text.split(/(?<=\S)(?=\s)/).filter((piece) => piece !== '');
}

/** It cannot answer in JSON (see above); LocalProvider's `unsupportedParam`. */
export function localUnsupportedParam(req: Pick<ProviderRequest, 'response_format'>): string | undefined {
  return req.response_format && req.response_format.type !== 'text' ? 'response_format' : undefined;
}

export class LocalProvider implements ProviderAdapter {
  readonly type = 'local' as const;

  unsupportedParam(req: ProviderRequest): string | undefined {
    return localUnsupportedParam(req);
  }

  /** `local/embed`: deterministic unit vectors by feature hashing (local-embed.ts); texts only. */
  readonly embedsTokenArrays = false;
  embed(req: EmbeddingRequest, _creds?: ProviderCredentials, opts: ProviderCallOptions = {}): Promise<EmbeddingResult> {
    try {
      throwIfAborted(opts.signal);
      return Promise.resolve(localEmbed(req));
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  /** Exactly what its usage would say: the words of every message's text content. */
  countInputTokens(req: ProviderRequest): Promise<InputTokenCount> {
    return Promise.resolve({ input_tokens: req.messages.reduce((sum, m) => sum + countWords(contentText(m.content)), 0), exact: true });
  }

  async complete(req: ProviderRequest, _creds?: ProviderCredentials, opts: ProviderCallOptions = {}): Promise<ProviderResult> {
    throwIfAborted(opts.signal);
    const answer = this.answer(req);
    const message: ChatCompletion.Choice['message'] =
      answer.kind === 'text'
        ? { role: 'assistant', content: answer.text, refusal: null }
        : {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [{ id: answer.id, type: 'function', function: { name: answer.name, arguments: answer.arguments } }],
          };
    const finish = answer.kind === 'text' ? answer.finish : 'tool_calls';
    const tokens = this.tokens(req, answer);
    const completion: ChatCompletion = {
      id: `chatcmpl-${randomUUID()}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: req.model,
      choices: Array.from({ length: choiceCount(req) }, (_, index) => ({
        index,
        message,
        logprobs: null,
        finish_reason: finish,
        ...(answer.kind === 'text' ? answer.stop : {}),
      })),
      usage: completionUsageOf(tokens),
    };
    return { completion, providerRequest: req, providerResponse: completion, tokens };
  }

  stream(req: ProviderRequest, _creds?: ProviderCredentials, opts: ProviderCallOptions = {}): ProviderStream {
    return new ChunkStream(req, (sink) => this.chunks(req, opts.signal, sink));
  }

  private async *chunks(req: ProviderRequest, signal: AbortSignal | undefined, sink: ChunkStream): AsyncGenerator<ChatCompletionChunk> {
    throwIfAborted(signal);
    const answer = this.answer(req);
    const head: ChunkHeader = { id: `chatcmpl-${randomUUID()}`, created: Math.floor(Date.now() / 1000), model: req.model };
    const count = choiceCount(req);
    for (let index = 0; index < count; index += 1) {
      if (answer.kind === 'text') {
        yield makeChunk(head, { role: 'assistant', content: '' }, null, index);
        for (const piece of wordPieces(answer.text)) {
          throwIfAborted(signal);
          yield makeChunk(head, { content: piece }, null, index);
        }
      } else {
        const call = { index: 0, id: answer.id, type: 'function' as const, function: { name: answer.name, arguments: '' } };
        yield makeChunk(head, { role: 'assistant', content: null, tool_calls: [call] }, null, index);
        for (const piece of wordPieces(answer.arguments)) {
          throwIfAborted(signal);
          yield makeChunk(head, { tool_calls: [{ index: 0, function: { arguments: piece } }] }, null, index);
        }
      }
      throwIfAborted(signal);
      if (index === count - 1) sink.tokens = this.tokens(req, answer);
      const last = makeChunk(head, {}, answer.kind === 'text' ? answer.finish : 'tool_calls', index);
      if (answer.kind === 'text' && answer.stop) Object.assign(last.choices[0], answer.stop);
      yield last;
    }
  }

  private answer(req: ProviderRequest): Answer {
    if (!LOCAL_MODELS.includes(req.model)) {
      throw new ProviderError('bad_request', `The local provider has no model "${req.model}"; its models are: ${LOCAL_MODELS.join(', ')}`, {
        provider: 'local',
      });
    }
    const last = req.messages[req.messages.length - 1];
    const userText = contentText([...req.messages].reverse().find((m) => m.role === 'user')?.content);
    const tool =
      last?.role === 'tool' ? undefined : (forcedTool(req) ?? (last?.role === 'user' ? mentionedTool(req, userText) : undefined));
    if (tool) {
      const args = JSON.stringify({ input: userText });
      const digest = createHash('sha256')
        .update(JSON.stringify([tool, args, req.messages.length]))
        .digest('hex');
      return { kind: 'tool_call', id: `call_${digest.slice(0, 24)}`, name: tool, arguments: args };
    }
    const { text, stop } = cutAtStop(last?.role === 'tool' ? contentText(last.content) : userText, req.stop);
    const limit = req.max_completion_tokens ?? req.max_tokens;
    const cut = limit === undefined ? undefined : cutAfterWords(text, Math.max(0, Math.floor(limit)));
    return cut === undefined ? { kind: 'text', text, finish: 'stop', stop } : { kind: 'text', text: cut, finish: 'length' };
  }

  private tokens(req: ProviderRequest, answer: Answer) {
    const prompt = req.messages.reduce((sum, m) => sum + countWords(contentText(m.content)), 0);
    return plainTokens(prompt, countWords(answer.kind === 'text' ? answer.text : answer.arguments) * choiceCount(req));
  }
}

/** `n`, as a whole number from 1 to 128 (OpenAI's bounds). */
function choiceCount(req: ProviderRequest): number {
  const n = Math.floor(Number(req.n ?? 1));
  return Number.isFinite(n) ? Math.min(128, Math.max(1, n)) : 1;
}

/** The text before the first occurrence of any stop sequence, and that sequence (the first listed of those found there). */
function cutAtStop(text: string, stop: ProviderRequest['stop']): { text: string; stop?: StopSequenceField } {
  const sequences = (Array.isArray(stop) ? stop : stop === undefined || stop === null ? [] : [stop]).filter((s) => s !== '');
  let first: { at: number; sequence: string } | undefined;
  for (const sequence of sequences) {
    const at = text.indexOf(sequence);
    if (at >= 0 && (!first || at < first.at)) first = { at, sequence };
  }
  return first ? { text: text.slice(0, first.at), stop: { stop_sequence: first.sequence } } : { text };
}

/** The function the request forces a call of, if any. */
function forcedTool(req: ProviderRequest): string | undefined {
  const choice = req.tool_choice;
  if (typeof choice === 'object' && choice.type === 'function') return choice.function.name;
  const first = req.tools?.[0];
  if (choice === 'required' && first) return first.type === 'function' ? first.function.name : first.custom.name;
  return undefined;
}

/** With `auto` (or no tool choice): the first function tool the user's text mentions, if any. */
function mentionedTool(req: ProviderRequest, userText: string): string | undefined {
  if (req.tool_choice !== undefined && req.tool_choice !== 'auto') return undefined;
  const text = userText.toLowerCase();
  const words = new Set(text.match(/[a-z0-9]+/g) ?? []);
  for (const tool of req.tools ?? []) {
    if (tool.type !== 'function') continue;
    const name = tool.function.name;
    const parts = name
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((part) => part.length >= 4);
    if (new RegExp(`(^|[^a-z0-9_])${escapeRegExp(name.toLowerCase())}($|[^a-z0-9_])`).test(text) || parts.some((part) => words.has(part)))
      return name;
  }
  return undefined;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new ProviderError('aborted', 'local request cancelled by the caller', { provider: 'local' });
}
