import { Injectable } from '@nestjs/common';

import { notFound } from '../common/errors';
import { WorkspacesService } from '../workspaces/workspaces.service';
import { ImportService, ImportSummary } from './import.service';
import { ImportTarget } from './import-target';

/** Resolves the target project (by slugs for the admin key and the CLI) and runs the import. */
@Injectable()
export class ImportFacade {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly importer: ImportService,
  ) {}

  async run(target: ImportTarget, records: unknown[]): Promise<ImportSummary> {
    let projectId: string;
    if (target.kind === 'project') projectId = target.projectId;
    else {
      const found = await this.workspaces.findProject(target.workspace, target.project);
      if (!found) throw notFound(`Project ${target.workspace}/${target.project} not found`);
      projectId = found.project.id;
    }
    return this.importer.importAssistantsThreads(projectId, records);
  }
}
