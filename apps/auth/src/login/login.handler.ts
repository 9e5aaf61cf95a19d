import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AccessToken, AuthContracts } from '@gw/contracts';
import { LoginDto } from '@gw/dto';
import { LoginService } from './login.service';

@Controller()
export class LoginHandler {
  constructor(private readonly logins: LoginService) {}

  @MessagePattern(AuthContracts.login.subject)
  login(@Payload() request: LoginDto): Promise<AccessToken> {
    return this.logins.login(request);
  }
}
