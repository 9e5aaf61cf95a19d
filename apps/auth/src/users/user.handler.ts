import { Controller } from '@nestjs/common';
import { AuthContracts, AuthUser } from '@gw/contracts';
import { CreateUserDto } from '@gw/dto';
import { HandlesRpc } from '@gw/platform';
import { UserService } from './user.service';

@Controller()
export class UserHandler {
  constructor(private readonly users: UserService) {}

  @HandlesRpc(AuthContracts.adminCreateUser, CreateUserDto)
  create(request: CreateUserDto): Promise<AuthUser> {
    return this.users.create(request);
  }
}
