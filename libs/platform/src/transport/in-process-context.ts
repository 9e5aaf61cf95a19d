import { BaseRpcContext } from '@nestjs/microservices';

/** The context of a message on the in-process bus, where caller and handler live and die together. */
export class InProcessContext extends BaseRpcContext<[string]> {}
