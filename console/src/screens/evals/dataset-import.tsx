import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { Form } from 'react-aria-components';

import { api, ApiError, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { Choices } from '../../components/fields';
import { Card, ErrorNote } from '../../components/ui';
import { evalKeys } from './queries';

type Format = 'jsonl' | 'csv';

/** The problems in the file's order (the server lists the lines that are not JSON first); those without a line first. */
const lineOf = (problem: string) => Number(/^line (\d+):/.exec(problem)?.[1] ?? 0);
const byLine = (problems: string[]) => [...problems].sort((a, b) => lineOf(a) - lineOf(b));

/**
 * Imports a JSONL or CSV file into the dataset (`POST /v2/datasets/:name/import`): the file is read
 * in the browser and sent as text; a 400 lists each line's problem, and nothing is imported.
 */
export function ImportItems({ dataset, onImported }: { dataset: string; onImported: (change: string) => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [format, setFormat] = useState<Format>('jsonl');
  const input = useRef<HTMLInputElement>(null);
  const client = useQueryClient();
  const upload = useMutation({
    mutationFn: async () => {
      const content = await file!.text();
      try {
        return await unwrap(api.POST('/v2/datasets/{name}/import', { params: { path: { name: dataset } }, body: { format, content } }));
      } catch (err) {
        // A 400 lists each line's problem: say that nothing was imported, then the lines.
        if (err instanceof ApiError && err.status === 400 && err.details.length)
          throw new ApiError(400, `Nothing was imported from ${file!.name}: fix these lines and import it again.`, byLine(err.details));
        throw err;
      }
    },
    onSuccess: (change) => {
      void client.invalidateQueries({ queryKey: evalKeys.datasets });
      onImported(
        `Imported ${change.itemIds.length} item${change.itemIds.length === 1 ? '' : 's'}: ${dataset} is now at version ${change.version} (${change.itemCount} items).`,
      );
      setFile(null);
      if (input.current) input.current.value = '';
    },
  });
  return (
    <Card title="Import a file">
      <p className="muted small">
        JSONL: one item a line, <code>{'{"variables": {...}, "messages": [...], "expected": "..."}'}</code>. CSV: a header row;{' '}
        <code>expected</code> is the expected output, <code>messages</code> a JSON array, <code>metadata.&lt;key&gt;</code> a metadata
        field, any other column a variable. Up to 1,000 items a file; the import makes one new version.
      </p>
      <Form
        className="row"
        onSubmit={(event) => {
          event.preventDefault();
          if (file) upload.mutate();
        }}
      >
        <div className="field">
          <label htmlFor="import-file">File</label>
          <input
            id="import-file"
            ref={input}
            type="file"
            accept=".jsonl,.ndjson,.json,.csv,text/csv,application/jsonl"
            onChange={(event) => {
              const chosen = event.target.files?.[0] ?? null;
              setFile(chosen);
              upload.reset();
              if (chosen) setFormat(/\.csv$/i.test(chosen.name) ? 'csv' : 'jsonl');
            }}
          />
        </div>
        <Choices
          label="Format"
          items={[
            { id: 'jsonl', label: 'JSONL' },
            { id: 'csv', label: 'CSV' },
          ]}
          value={format}
          onChange={setFormat}
        />
        <Button type="submit" isDisabled={!file || upload.isPending}>
          Import
        </Button>
      </Form>
      <ErrorNote error={upload.error} />
    </Card>
  );
}
