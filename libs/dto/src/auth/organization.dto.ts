import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, IsUUID, Length } from 'class-validator';
import {
  CreateOrganizationRequest,
  Membership,
  Organization,
  ORGANIZATION_ROLES,
  OrganizationRole,
} from '@gw/contracts';
import { HasNoNul, IsNotBlank } from '../common/text-rules';
import { NAME_MAX_LENGTH } from './auth.constants';

export class CreateOrganizationDto implements CreateOrganizationRequest {
  @ApiProperty({ example: 'Acme', minLength: 1, maxLength: NAME_MAX_LENGTH })
  @IsString()
  @IsNotBlank()
  @HasNoNul()
  @Length(1, NAME_MAX_LENGTH)
  name!: string;
}

export class OrganizationDto implements Organization {
  @ApiProperty({ example: '5d0f4c7e-2b1a-4f39-8f3e-8a6c2e1d9b40', format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'Acme' })
  name!: string;
}

export class OrganizationParamsDto {
  @ApiProperty({ example: '5d0f4c7e-2b1a-4f39-8f3e-8a6c2e1d9b40', format: 'uuid' })
  @IsUUID()
  orgId!: string;
}

export class MembershipParamsDto extends OrganizationParamsDto {
  @ApiProperty({ example: '0b6c3c1e-6f0a-4b8e-9d43-3f1f0f8a9c21', format: 'uuid' })
  @IsUUID()
  userId!: string;
}

export class SetMembershipDto {
  @ApiProperty({ enum: [...ORGANIZATION_ROLES], example: 'member' })
  @IsIn([...ORGANIZATION_ROLES])
  role!: OrganizationRole;
}

export class MembershipDto implements Membership {
  @ApiProperty({ example: '5d0f4c7e-2b1a-4f39-8f3e-8a6c2e1d9b40', format: 'uuid' })
  organizationId!: string;

  @ApiProperty({ example: '0b6c3c1e-6f0a-4b8e-9d43-3f1f0f8a9c21', format: 'uuid' })
  userId!: string;

  @ApiProperty({ enum: [...ORGANIZATION_ROLES], example: 'member' })
  role!: OrganizationRole;
}

export class OrganizationApiKeyParamsDto extends OrganizationParamsDto {
  @ApiProperty({ example: '8f14e45f-ceea-467f-a0e6-3b8d5c2a1f00', format: 'uuid' })
  @IsUUID()
  id!: string;
}
