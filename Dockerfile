# One image for every ossn process: `ossn serve` (query service), `ossn projector`, `ossn setup`.
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-fund --no-audit
COPY bin ./bin
COPY contracts ./contracts
COPY projections ./projections
COPY services ./services
COPY wsdl ./wsdl
COPY tsconfig.json ./
USER node
ENTRYPOINT ["node", "bin/ossn.mjs"]
CMD ["serve"]
