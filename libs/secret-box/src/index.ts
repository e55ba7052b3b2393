export { gatewayCredentialAad, SecretBox } from './secret-box';
export { keyId } from './key-id';
export { isSecretsKeys, parseSecretsKeys, SECRETS_KEYS_FORMAT } from './parse-secrets-keys';
export { productionSecretProblems, type SecretKind } from './production-secret-problems';
export { hashId } from './hash-id';
export { productionSecretsRefusal } from './production-secrets-refusal';
export { deploymentMode, isLoopbackHost, SWITCHBOARD_ENVS, type DeploymentMode, type SwitchboardEnv } from './deployment-mode';
