import { Controller } from '@nestjs/common';
import {
  ConsentContext,
  ConsentContextRequest,
  ExchangeAuthorizationCodeRequest,
  IssueAuthorizationCodeRequest,
  IssuedAuthorizationCode,
  OAuthContracts,
  OAuthIssuedKey,
  OAuthUserInfo,
  UserInfoRequest,
} from '@gw/contracts';
import { HandlesRpc } from '@gw/platform';
import { OAuthService } from './oauth.service';

@Controller()
export class OAuthHandler {
  constructor(private readonly oauth: OAuthService) {}

  @HandlesRpc(OAuthContracts.consentContext)
  consentContext(request: ConsentContextRequest): Promise<ConsentContext> {
    return this.oauth.consentContext(request.userId);
  }

  @HandlesRpc(OAuthContracts.issueCode)
  issueCode(request: IssueAuthorizationCodeRequest): Promise<IssuedAuthorizationCode> {
    return this.oauth.issueCode(request);
  }

  @HandlesRpc(OAuthContracts.exchangeCode)
  exchange(request: ExchangeAuthorizationCodeRequest): Promise<OAuthIssuedKey> {
    return this.oauth.exchange(request);
  }

  @HandlesRpc(OAuthContracts.userInfo)
  userInfo(request: UserInfoRequest): Promise<OAuthUserInfo> {
    return this.oauth.userInfo(request);
  }
}
