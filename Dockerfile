FROM node:20-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
ENV HOST=0.0.0.0 PORT=8080
EXPOSE 8080
CMD ["npm", "start"]
