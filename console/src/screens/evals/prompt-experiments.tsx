import { Link } from 'react-router';

import type { Version } from '../../api/client';
import { ExperimentLauncher } from './launcher';
import { RunsTable } from './runs';

/** The prompt page's experiments: start a run on a version or an environment's live version, its runs, two of them compared. */
export default function PromptExperiments({
  slug,
  versions,
  deployments,
}: {
  slug: string;
  versions: Version[];
  deployments: { environment: string; version: number }[];
}) {
  return (
    <section aria-labelledby="experiments">
      <h2 id="experiments">Experiments</h2>
      <p className="row">
        <ExperimentLauncher target={{ prompt: slug, versions, deployments }} />
        <Link to={`/evals/runs?prompt=${encodeURIComponent(slug)}`}>All runs of {slug}</Link>
        <Link to="/datasets">Datasets</Link>
        <Link to="/graders">Graders</Link>
      </p>
      <RunsTable prompt={slug} />
    </section>
  );
}
