import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';

import { CurrentProject, RequireScope } from '../auth/auth.decorators';
import { ProjectPrincipal } from '../auth/principal';
import { ApiErrors } from '../common/swagger/error-responses';
import { CreateTransaction, InCreateTransaction } from '../idempotency/create-transaction';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { CreateWebhookDto, WebhookCreatedDto, WebhookDeletedDto, WebhookListDto } from './webhook.dto';
import { WebhooksService } from './webhooks.service';

/** The project's webhooks for background responses' final events (docs/openai-conversations.md, "Webhooks"). */
@ApiTags('Webhooks')
@ApiSecurity('api-key')
@ApiErrors(401, 403)
@Controller('v2/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Idempotent()
  @RequireScope('providers:write')
  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a webhook', description: 'Its Standard Webhooks signing secret is in this answer only.' })
  @ApiOkResponse({ type: WebhookCreatedDto })
  @ApiErrors(400)
  create(
    @CurrentProject() caller: ProjectPrincipal,
    @Body() dto: CreateWebhookDto,
    @InCreateTransaction() tx: CreateTransaction,
  ): Promise<WebhookCreatedDto> {
    return this.webhooks.create(caller.projectId, dto, tx);
  }

  @RequireScope('providers:read')
  @Get()
  @ApiOperation({ summary: 'List webhooks', description: 'Oldest first; secrets are never listed.' })
  @ApiOkResponse({ type: WebhookListDto })
  async list(@CurrentProject() caller: ProjectPrincipal): Promise<WebhookListDto> {
    return { object: 'list', data: await this.webhooks.list(caller.projectId) };
  }

  @RequireScope('providers:write')
  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete a webhook', description: 'Its pending deliveries are not sent.' })
  @ApiOkResponse({ type: WebhookDeletedDto })
  @ApiErrors(404)
  delete(@CurrentProject() caller: ProjectPrincipal, @Param('id') id: string): Promise<WebhookDeletedDto> {
    return this.webhooks.delete(caller.projectId, id);
  }
}
