import { ApiProperty } from '@nestjs/swagger';

import { PageQuery } from '../../common/pagination';

export class UsersQuery extends PageQuery {}

/** A person known to the instance (docs/security.md, "Instance admins"). */
export class UserDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['user'] }) object: 'user';
  @ApiProperty({ example: 'ana@example.com' }) email: string;
  @ApiProperty({ type: String, nullable: true, example: 'Ana Lima' }) name: string | null;
  @ApiProperty({ description: 'false: deactivated (SCIM or an operator); their sessions are refused' }) active: boolean;
  @ApiProperty({ description: 'every workspace, every scope, as the instance admin key' }) instanceAdmin: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'null: has not signed in yet' })
  lastSignInAt: string | null;
}

export class UserListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [UserDto] }) data: UserDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ nullable: true, type: String }) first_id: string | null;
  @ApiProperty({ nullable: true, type: String }) last_id: string | null;
}
