import { ApiProperty } from '@nestjs/swagger';

import { IsSlug, Optional, Text } from '../../common/validation';

export class CreateWorkspaceDto {
  @IsSlug('acme')
  slug: string;

  @Optional()
  @Text({ min: 1, max: 200, example: 'Acme Inc.', description: 'defaults to the slug' })
  name?: string;
}

export class CreateProjectDto extends CreateWorkspaceDto {}

export class WorkspaceDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'acme' }) slug: string;
  @ApiProperty({ example: 'Acme Inc.' }) name: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class ProjectDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) workspaceId: string;
  @ApiProperty({ example: 'acme' }) workspace: string;
  @ApiProperty({ example: 'support' }) slug: string;
  @ApiProperty({ example: 'Support bot' }) name: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class WorkspaceListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [WorkspaceDto] }) data: WorkspaceDto[];
}

export class ProjectListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [ProjectDto] }) data: ProjectDto[];
}

/** The typed confirmation a project's deletion needs (docs/security.md, "Deleting a project"). */
export class DeleteProjectDto {
  @Text({
    max: 200,
    example: 'acme/support',
    description: "the project's `<workspace>/<project>`, typed in full by whoever deletes it; anything else is a 400",
  })
  confirm: string;
}

export class ProjectDeletedDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'acme' }) workspace: string;
  @ApiProperty({ example: 'support' }) slug: string;
  @ApiProperty({ enum: ['project.deleted'] }) object: 'project.deleted';
  @ApiProperty({ enum: [true] }) deleted: true;
  @ApiProperty({ example: 1832, description: "the project's rows deleted with it, in every table (the project's own row aside)" })
  deletedRows: number;
}
