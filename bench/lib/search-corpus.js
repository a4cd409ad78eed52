'use strict';
/**
 * The request logs bench/log-search.js searches: generated in PostgreSQL (INSERT ... SELECT over
 * generate_series), deterministic, with text whose words follow a Zipf-like law. Each project has
 * its own topic (a support desk, a law firm, a travel agent, a coding assistant): 60 shared English
 * words, the project's own topic words (which the other projects never use), and a long tail of
 * 20,000 made-up words ranked differently in each project. A log's input is 2-6 sentences from its
 * project's pool of 5,000 and an order number out of 200,000 (a rare word: a handful of logs each);
 * its output 1-5 sentences. 3 % of the calls failed (an error message, no output).
 */

const COMMON = (
  'the a to and of is in for you it i my your this that be on with can have please was are not we do what how ' +
  'will me at an if or as so but from about there would could should when which our they has all any one more also just get help need thanks hello'
).split(' ');

const TOPICS = {
  support: (
    'order refund shipping parcel delivery invoice account password subscription cancel charge card payment receipt tracking ' +
    'courier warehouse return exchange damaged missing replacement voucher discount coupon checkout basket cart size colour ' +
    'warranty complaint agent ticket escalate email address postcode billing statement overcharged duplicate login reset locked ' +
    'newsletter unsubscribe loyalty points membership upgrade downgrade renewal trial quote stock backorder restock dispatch'
  ).split(' '),
  legal: (
    'contract clause liability indemnity tenant landlord lease plaintiff defendant court hearing appeal statute regulation ' +
    'compliance breach damages settlement arbitration jurisdiction counsel attorney solicitor affidavit witness testimony verdict ' +
    'injunction probate estate inheritance trust trademark copyright patent licence licensee licensor termination notice ' +
    'warranty-free negligence tort custody divorce alimony mediation deposition subpoena precedent ruling judgment filing docket'
  ).split(' '),
  travel: (
    'flight hotel booking itinerary passport visa airport layover baggage luggage boarding gate seat aisle window upgrade ' +
    'cancellation delay refundable reservation checkin checkout suite breakfast resort cruise ferry train railway rental car ' +
    'insurance destination beach mountain museum tour guide excursion transfer shuttle terminal customs currency exchange-rate ' +
    'hostel apartment villa campsite jetlag timezone departure arrival connection stopover lounge mileage'
  ).split(' '),
  code: (
    'function error stack compile runtime exception variable array object string integer boolean null undefined async await ' +
    'promise callback module import export package dependency version build deploy docker container kubernetes cluster query ' +
    'database index schema migration commit branch merge rebase conflict test assertion mock fixture lint typescript python ' +
    'java rust golang regex parser compiler debugger breakpoint segfault memory leak pointer thread mutex deadlock'
  ).split(' '),
};
const PROJECTS = Object.keys(TOPICS);
/** Logs per project, out of every 10: the support desk is the largest. */
const SHARES = [4, 3, 2, 1];
const TAIL_SIZE = 20_000;
const SENTENCES = 5_000;
const ORDER_NUMBERS = 200_000;
const ERRORS = ['Provider rate limit exceeded', 'The provider call failed: 502 Bad Gateway', 'Upstream timeout after 30 s'];

/** The made-up words: 20,000 distinct ones of 2-4 syllables, the same on every run. */
function tailWords() {
  const onsets = ['b', 'd', 'f', 'g', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z', 'br', 'kr', 'st', 'tr', 'sh', 'gl'];
  const vowels = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou'];
  let seed = 42;
  const next = (n) => {
    // mulberry32: 32-bit integer arithmetic (Math.imul), exact in JavaScript.
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
  const words = new Set();
  while (words.size < TAIL_SIZE) {
    let word = '';
    for (let i = 0, n = 2 + next(3); i < n; i++) word += onsets[next(onsets.length)] + vowels[next(vowels.length)];
    words.add(word);
  }
  return [...words];
}

/** Uniform in [0, 1) from a hash of integers: deterministic, so every run seeds the same text. */
const uniform = (expr) => `((hashint8(${expr}) & 2147483647)::float8 / 2147483648)`;
/** A rank in 1..size, rank r drawn with probability about 1/r (log-uniform): Zipf's law. */
const zipf = (expr, size) => `least(${size}, greatest(1, floor(power(${size}::float8, ${uniform(expr)}))::int))`;

/** Creates the word and sentence tables (bench_words, bench_sentences) the logs are made of. */
async function createCorpus(client) {
  const tail = tailWords();
  await client.query('CREATE TABLE bench_words (kind text, project int, rank int, word text, PRIMARY KEY (kind, project, rank))');
  const insertWords = (kind, project, words) =>
    client.query(`INSERT INTO bench_words SELECT $1, $2, n, w FROM unnest($3::text[]) WITH ORDINALITY AS u (w, n)`, [kind, project, words]);
  await insertWords('common', 0, COMMON);
  await insertWords('tail', 0, tail);
  for (const [index, name] of PROJECTS.entries()) await insertWords('topic', index + 1, TOPICS[name]);
  // Sentence n of project p: 6-17 words, each a shared word (45 %), a topic word (35 %) or a tail
  // word (20 %; the tail's ranks are permuted per project, so each has its own frequent tail words).
  await client.query(
    `CREATE TABLE bench_sentences AS
     SELECT pick.p AS project, pick.n, string_agg(w.word, ' ' ORDER BY pick.k) AS body
       FROM (SELECT p, n, k,
                    CASE WHEN u < 0.45 THEN 'common' WHEN u < 0.8 THEN 'topic' ELSE 'tail' END AS kind,
                    CASE WHEN u >= 0.45 AND u < 0.8 THEN p ELSE 0 END AS owner,
                    CASE WHEN u < 0.45 THEN ${zipf('x * 3', COMMON.length)}
                         WHEN u < 0.8 THEN ${zipf('x * 5', '($1::int[])[p]')}
                         ELSE ((${zipf('x * 7', TAIL_SIZE)} - 1) * 7919 + p * 1009) % ${TAIL_SIZE} + 1 END AS rank
               FROM (SELECT p, n, k, p * 10000000 + n * 100 + k AS x, ${uniform('p * 10000000 + n * 100 + k')} AS u
                       FROM generate_series(1, ${PROJECTS.length}) AS p, generate_series(0, ${SENTENCES - 1}) AS n,
                            LATERAL generate_series(1, 6 + (hashint8(p * 100000 + n) & 2147483647) % 12) AS k) AS draw) AS pick
       JOIN bench_words w ON w.kind = pick.kind AND w.project = pick.owner AND w.rank = pick.rank
      GROUP BY pick.p, pick.n`,
    [PROJECTS.map((name) => TOPICS[name].length)],
  );
  await client.query('ALTER TABLE bench_sentences ADD PRIMARY KEY (project, n)');
  await client.query('ANALYZE bench_words, bench_sentences');
}

/** Project (1-based) of log g, by SHARES. */
const projectOf = (g) => `(ARRAY[${SHARES.flatMap((share, index) => Array(share).fill(index + 1)).join(', ')}])[1 + ${g} % 10]`;

/**
 * Per log g of the batch, `count` sentences of its project joined, picked by a hash of g and
 * `salt`: one hash join of every pick with the sentences, then one aggregate (set-based; a
 * subquery per log would hash the project's sentences once per log).
 */
const paragraphs = (salt, count) => `(SELECT pick.g, string_agg(bs.body, '. ' ORDER BY pick.k) AS body
    FROM (SELECT g, k, ${projectOf('g')} AS p, (hashint8(g * 16 + ${salt} * 8 + k) & 2147483647) % ${SENTENCES} AS n
            FROM generate_series($3::bigint, $4::bigint) AS g, LATERAL generate_series(1, ${count}) AS k) AS pick
    JOIN bench_sentences bs ON bs.project = pick.p AND bs.n = pick.n
   GROUP BY pick.g)`;

/**
 * Inserts logs `from`..`to` (1-based numbers g): project by SHARES, UUIDv7 ids from start times
 * spread evenly over `days` before `endMs`, as the server makes them.
 */
async function insertLogs(client, projectIds, from, to, endMs, total, days) {
  const stepMs = (days * 86_400_000) / total;
  await client.query(
    `INSERT INTO request_logs (project_id, id, prompt_slug, kind, environment, version, provider_name, provider_type, model, url,
                               stream, do_not_record, metadata, variables, parameters, request_data, provider_request, provider_response,
                               status, error, latency_ms, prompt_tokens, completion_tokens, total_tokens, started_at)
     SELECT ($1::uuid[])[s.p], (lpad(to_hex(s.ms), 12, '0') || '7' || substr(s.h, 1, 3) || '8' || substr(s.h, 4, 15))::uuid,
            s.slug, 'prompt', 'production', 1 + s.g % 3, 'openai', 'openai', s.model, '/bench/' || s.slug || '/production',
            false, false, jsonb_build_object('customer', 'c_' || s.g % 5000), jsonb_build_object('customer', 'c_' || s.g % 5000), '{}',
            jsonb_build_object('messages', jsonb_build_array(jsonb_build_object('role', 'user', 'content', s.input)),
                               'variables', jsonb_build_object('customer', 'c_' || s.g % 5000)),
            jsonb_build_object('model', s.model, 'messages', jsonb_build_array(
              jsonb_build_object('role', 'system', 'content', 'You are a helpful assistant. Answer briefly.'),
              jsonb_build_object('role', 'user', 'content', s.input))),
            CASE WHEN NOT s.failed THEN jsonb_build_object('id', 'chatcmpl-' || s.h, 'object', 'chat.completion', 'model', s.model,
              'choices', jsonb_build_array(jsonb_build_object('index', 0, 'finish_reason', 'stop',
                'message', jsonb_build_object('role', 'assistant', 'content', s.output))),
              'usage', jsonb_build_object('prompt_tokens', 60, 'completion_tokens', 40, 'total_tokens', 100)) END,
            CASE WHEN s.failed THEN 502 ELSE 200 END, CASE WHEN s.failed THEN ($2::text[])[1 + s.g % 3] END,
            200 + s.g % 1800, 60, 40, 100, to_timestamp(s.ms / 1000.0)
       FROM (SELECT base.*, input.body || '. Order #' || (hashint8(base.g) & 2147483647) % ${ORDER_NUMBERS} AS input, output.body AS output
               FROM (SELECT g, md5(g::text) AS h, g % 33 = 0 AS failed, ${projectOf('g')} AS p,
                            'prompt-' || g % 6 AS slug, (ARRAY['gpt-4o-mini', 'gpt-4o', 'claude-sonnet'])[1 + g % 3] AS model,
                            ($5::float8 - ($6::bigint - g) * $7::float8)::bigint AS ms
                       FROM generate_series($3::bigint, $4::bigint) AS g) AS base
               JOIN ${paragraphs(0, '2 + g % 5')} AS input ON input.g = base.g
               JOIN ${paragraphs(1, '1 + g % 5')} AS output ON output.g = base.g) AS s`,
    [projectIds, ERRORS, from, to, endMs, total, stepMs],
  );
}

module.exports = { COMMON, ERRORS, ORDER_NUMBERS, PROJECTS, SHARES, TOPICS, createCorpus, insertLogs, tailWords, TAIL_SIZE };
