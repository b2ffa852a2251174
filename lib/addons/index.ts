export * from "./certManager";
export * from "./gatewayApiCrds";
export * from "./prometheus";
export * from "./ingressControllers";
