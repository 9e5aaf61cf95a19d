import { Controller } from '@nestjs/common';
import { AccessToken, AuthContracts } from '@gw/contracts';
import { LoginDto } from '@gw/dto';
import { HandlesRpc } from '@gw/platform';
import { LoginService } from './login.service';

@Controller()
export class LoginHandler {
  constructor(private readonly logins: LoginService) {}

  @HandlesRpc(AuthContracts.login, LoginDto)
  login(request: LoginDto): Promise<AccessToken> {
    return this.logins.login(request);
  }
}
