import { MergeView } from '@codemirror/merge';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';

import { api, unwrap, type Version } from '../../api/client';
import { contentText } from '../../components/chat';
import { handlebarsHighlight, withNonce } from '../../components/code-editor';
import { ErrorNote, Loading } from '../../components/ui';
import { routingLines } from '../playground/routing-draft';
import { promptKey } from './prompt-queries';

/** Everything a version holds, one fact per line, so a diff shows exactly what changed. */
export function versionText(version: Version): string {
  const lines = [
    `provider: ${version.provider}`,
    `model: ${version.model}`,
    ...routingLines(version.routing, version.cache),
    `parameters: ${JSON.stringify(version.parameters)}`,
    `variables: ${JSON.stringify(version.variables)}`,
  ];
  lines.push(`tools: ${version.tools.length === 0 ? '[]' : ''}`);
  for (const tool of version.tools) lines.push(`  ${JSON.stringify(tool)}`);
  lines.push('template:');
  for (const message of version.template) {
    lines.push(`--- ${message.role}${'name' in message && message.name ? ` (${message.name})` : ''}`);
    lines.push(...contentText(message.content).split('\n'));
  }
  return lines.join('\n');
}

function useVersion(slug: string, version: string) {
  return useQuery({
    queryKey: [...promptKey(slug), 'version', version],
    queryFn: () => unwrap(api.GET('/v2/prompts/{slug}/versions/{version}', { params: { path: { slug, version } } })),
    enabled: version !== '',
  });
}

export default function DiffScreen() {
  const slug = useParams().slug!;
  const [params] = useSearchParams();
  const a = useVersion(slug, params.get('a') ?? '');
  const b = useVersion(slug, params.get('b') ?? '');
  const host = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!a.data || !b.data || !host.current) return;
    const readOnly = [
      withNonce,
      EditorState.readOnly.of(true),
      EditorView.editable.of(false),
      EditorView.lineWrapping,
      handlebarsHighlight,
    ];
    const view = new MergeView({
      parent: host.current,
      a: {
        doc: versionText(a.data),
        extensions: [...readOnly, EditorView.contentAttributes.of({ 'aria-label': `version ${a.data.version}` })],
      },
      b: {
        doc: versionText(b.data),
        extensions: [...readOnly, EditorView.contentAttributes.of({ 'aria-label': `version ${b.data.version}` })],
      },
      highlightChanges: true,
      gutter: true,
    });
    return () => view.destroy();
  }, [a.data, b.data]);

  return (
    <>
      <h1>
        {slug}: v{params.get('a')} → v{params.get('b')}
      </h1>
      <p>
        <Link to={`/prompts/${encodeURIComponent(slug)}?a=${params.get('a') ?? ''}&b=${params.get('b') ?? ''}`}>Back to {slug}</Link>
      </p>
      <ErrorNote error={a.error ?? b.error} />
      {a.isPending || b.isPending ? <Loading /> : null}
      <div className="diff" ref={host} aria-label={`Differences between v${params.get('a')} and v${params.get('b')}`} role="region" />
    </>
  );
}
