// Strings of the parametric-pooling section of <attention-pooling>, in English and Chinese.
export const en = {
  'pooling.fitHeading': 'Parametric pooling: learning the kernel width',
  'pooling.fitIntro': 'Nadaraya-Watson has no parameters: the bandwidth is chosen by hand. Put one learnable w inside the Gaussian kernel and fit it by gradient descent. Each training point is predicted from the other 49 (leave-one-out); with itself among the keys, the best w would be infinite and every point would simply copy its own target. A larger w means a narrower kernel: the prediction follows the data, noise included.',
  'pooling.rate': 'Learning rate',
  'pooling.useLearned': 'Use the learned bandwidth 1/|w| = {h}',
  'pooling.lossTitle': 'Leave-one-out loss L(w) at each step of gradient descent',
  'pooling.epoch': 'step',
  'pooling.loss': 'loss L(w)',
  'pooling.fitResult': 'From w = 1, {epochs} steps: w = {w} (bandwidth 1/|w| = {h}); loss {first} → {last}. Too large a learning rate overshoots and the loss stalls higher.',
};

export const zh = {
  'pooling.fitHeading': '带参数注意力汇聚：学习核的宽度',
  'pooling.fitIntro': 'Nadaraya-Watson 核回归没有参数，带宽靠手工挑选。在高斯核里放一个可学习的参数 w，用梯度下降来拟合。每个训练点都由其余 49 个点来预测（留一法）；如果它自己也在键里，最优的 w 会趋于无穷，每个点只会照抄自己的目标值。w 越大核越窄，预测越贴近数据，连噪声也一起跟随。',
  'pooling.rate': '学习率',
  'pooling.useLearned': '使用学到的带宽 1/|w| = {h}',
  'pooling.lossTitle': '梯度下降每一步的留一法损失 L(w)',
  'pooling.epoch': '步数',
  'pooling.loss': '损失 L(w)',
  'pooling.fitResult': '从 w = 1 出发走 {epochs} 步：w = {w}（带宽 1/|w| = {h}）；损失 {first} → {last}。学习率太大会冲过头，损失停在更高处。',
};
