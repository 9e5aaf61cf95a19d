import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AuthContracts, AuthUser } from '@gw/contracts';
import { CreateUserDto } from '@gw/dto';
import { UserService } from './user.service';

@Controller()
export class UserHandler {
  constructor(private readonly users: UserService) {}

  @MessagePattern(AuthContracts.adminCreateUser.subject)
  create(@Payload() request: CreateUserDto): Promise<AuthUser> {
    return this.users.create(request);
  }
}
